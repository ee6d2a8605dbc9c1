// SectionedResultsChange.swift — SectionedResultsChange: what a sectioned results notification
// reports, as in Realm Swift.

import Foundation

/// What a `SectionedResults` (or `ResultsSection`) notification reports (Realm's
/// `SectionedResultsChange`): `.initial` once, then `.update` after each commit that changed
/// the collection. Index paths are (section, item): deletions and modifications in the previous
/// version, insertions in the new one; an object whose section or position changed is deleted
/// and inserted.
///
///     case .update(let sections, let deletions, let insertions, let modifications, let sectionsToInsert, let sectionsToDelete):
///         tableView.deleteSections(sectionsToDelete)
@frozen public enum SectionedResultsChange<Collection> {
    /// The collection, first delivered.
    case initial(Collection)

    /// The collection after a commit that changed it.
    case update(Collection, deletions: [IndexPath], insertions: [IndexPath], modifications: [IndexPath],
                sectionsToInsert: IndexSet, sectionsToDelete: IndexSet)
}
