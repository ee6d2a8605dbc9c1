// CustomPersistableEmbeddedIndexTests.swift — index(of:) and contains on a List of a
// CustomPersistable type stored as an embedded object (PointModel.line).

import Foundation
import Testing

import OpenRealm

@Suite("index(of:) of a CustomPersistable stored as an embedded object")
struct CustomPersistableEmbeddedIndexTests {
    @Test("a managed List finds a point by its value, and gives nil for one it does not hold")
    func managedIndexOf() throws {
        let realm = try Realm(configuration: .init(
            inMemoryIdentifier: "custom-embedded-index-\(UUID().uuidString)", objectTypes: [PointModel.self, PointObject.self]))
        let model = PointModel()
        model.line.append(objectsIn: [Point(x: 1, y: 2), Point(x: 3, y: 4)])
        try realm.write { realm.add(model) }
        #expect(model.line.index(of: Point(x: 3, y: 4)) == 1)
        #expect(model.line.index(of: Point(x: 9, y: 9)) == nil)
        #expect(model.line.contains(Point(x: 1, y: 2)))
    }
}
