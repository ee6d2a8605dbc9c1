// ProjectionActorObservationTests.swift — the actor forms of `observe` of projections and
// sectioned results (Realm Swift's declarations): resolved on the actor, delivered isolated to
// it.

import Foundation
import OpenRealm
import Testing

/// An actor that owns a Realm of the projection models.
actor ProjectionStore {
    var realm: Realm!

    init(_ identifier: String) async throws {
        realm = try await Realm(configuration: .init(inMemoryIdentifier: identifier,
                                                     objectTypes: [ProjTown.self, ProjCitizen.self, ProjCounter.self, ProjBundle.self]),
                                actor: self)
    }

    func addCounter(_ count: Int, flag: Bool) async throws {
        try await realm.asyncWrite { realm.create(ProjCounter.self, value: ["count": count, "flag": flag]) }
    }

    func setFirstCount(_ count: Int) async throws {
        try await realm.asyncWrite { realm.objects(ProjCounter.self).first?.count = count }
    }

    /// Observes the first counter's projection on `watcher`, recording each change.
    func watchCounter(on watcher: Watcher) async -> NotificationToken {
        let view = realm.objects(ProjCounterView.self).first!
        return await view.observe(keyPaths: [\ProjCounterView.count], on: watcher) { watcher, change in
            if case .change(let view, let properties) = change { watcher.recordChange("\(properties.map(\.name)) \(view.count)") }
        }
    }

    /// Observes the counters sectioned by flag on `watcher`, recording the number of sections.
    func watchSections(on watcher: Watcher) async -> NotificationToken {
        let sections = realm.objects(ProjCounter.self).sectioned(by: \.flag, ascending: true)
        return await sections.observe(keyPaths: [\ProjCounter.count], on: watcher) { watcher, change in
            switch change {
            case .initial(let sections): watcher.recordCount(sections.count)
            case .update(let sections, _, _, _, _, _): watcher.recordCount(sections.count)
            }
        }
    }
}

@Suite("Projections and sectioned results observed on actors")
struct ProjectionActorObservationTests {
    @Test("a projection observed on another actor gets its changes there")
    func projectionOnActor() async throws {
        let store = try await ProjectionStore("proj-actor-\(UUID().uuidString)")
        try await store.addCounter(1, flag: false)
        let watcher = Watcher()
        let token = await store.watchCounter(on: watcher)
        try await store.setFirstCount(2)
        #expect(await eventually { await watcher.changes == ["[\"count\"] 2"] })
        token.invalidate()
    }

    @Test("sectioned results observed on another actor: .initial, then updates")
    func sectionsOnActor() async throws {
        let store = try await ProjectionStore("proj-actor-\(UUID().uuidString)")
        try await store.addCounter(1, flag: false)
        let watcher = Watcher()
        let token = await store.watchSections(on: watcher)
        #expect(await eventually { await watcher.counts == [1] })
        try await store.addCounter(2, flag: true)
        #expect(await eventually { await watcher.counts == [1, 2] })
        token.invalidate()
    }
}
