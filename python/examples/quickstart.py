import openrealm
from openrealm import Property

with openrealm.open("people.realm") as db:                # ./people.realm; key=... encrypts it
    with db.write() as txn:                               # commits at the end, rolls back on an exception
        txn.update_schema({
            "Dog": {"name": Property(str, primary_key=True), "age": "int"},
            "Person": {"id": Property(int, primary_key=True), "name": "string", "age": "int", "dogs": "Dog[]"},
        })
        rex = txn.create("Dog", {"name": "Rex", "age": 11}, update="modified")
        txn.create("Person", {"id": 1, "name": "Ann", "age": 34, "dogs": [rex]}, update="modified")
        txn.create("Person", {"id": 2, "name": "Bo", "age": 16}, update="modified")

    with db.read() as txn:
        adults = txn.query("Person", "age >= $0", 18).sorted("name")
        old_dogs = txn.query("Dog", "age > 10")
        mean_age = txn.objects("Person").average("age")
        rex = txn.object("Dog", "Rex")
        print(len(adults), len(old_dogs), mean_age, rex.linking_objects("Person", "dogs")[0].name)   # 1 1 25.0 Ann

    with db.write() as txn:
        txn.object("Person", 1).age += 1
