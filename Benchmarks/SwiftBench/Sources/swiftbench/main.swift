// swiftbench — W1, W2, W3, W4, W6 of docs/BENCHMARKS.md through
// OpenRealm's Swift API, against GRDB (SQLite through Swift) and against OpenRealm's C API
// called from Swift, interleaved per repetition in one process, each system on a fresh file.
//
// The work is bench_objects.c's: 1,000,000 Person objects (id = i + 1, name = "name-<i>",
// age = i % 100, score = splitmix64(i ^ 0x5EED) in [0, 1)); W1 inserts them in one write
// transaction with a durable commit; W2 reads `name` by 1,000,000 primary-key lookups from the
// splitmix64 stream in one read transaction (a checksum of the names is checked); W3 counts
// age >= 50 AND score < 0.5 (250,558 for 1M); W4 sums `score` (checked); W6 sets age = age + 1
// on every object in one write transaction with a durable commit. Checks run untimed.
//
// Usage: swiftbench [--count N] [--reps N] [--lookups N] [--w4-runs N] [--no-w3] [--w3-runs N] [--w1-only]
//                   [--dir DIR] [--systems openrealm,capi,grdb,grdb-records] [--keep]
//        swiftbench --async [--reps N] [--dir DIR] [--keep]   (issue 15's workloads: AsyncBench.swift)
// Build and run it with Benchmarks/run_swift.sh (release build, `chrt -f 1`).

import CEngine
import Foundation

#if canImport(Glibc)
import Glibc
#endif

// MARK: - Configuration and results

struct BenchConfig {
    var count = 1_000_000
    var lookups = 1_000_000
    var w4Runs = 5
    var w3 = true
    var w3Runs = 20
    /// Only W1 (for profiling the insert path).
    var w1Only = false
    var expectedChecksum: UInt64 = 0
    var expectedSum = 0.0
    var expectedCount = 0
}

enum Metric: Int, CaseIterable {
    case w1Seconds, w1Rate, w1CommitSeconds, w1MiB, w1RawMiB, w2Microseconds, w3Milliseconds, w4Milliseconds,
         w4IterateMilliseconds,
         w6Seconds, w6CommitSeconds, w6MiB, w6RawMiB, w6Growth

    var title: String {
        switch self {
        case .w1Seconds: "W1 s"
        case .w1Rate: "W1 objects/s"
        case .w1CommitSeconds: "W1 s in the commit"
        case .w1MiB: "W1 file MiB"
        case .w1RawMiB: "W1 db+WAL MiB (before checkpoint)"
        case .w2Microseconds: "W2 µs/lookup"
        case .w3Milliseconds: "W3 ms (median of runs)"
        case .w4Milliseconds: "W4 ms (median of runs)"
        case .w4IterateMilliseconds: "W4 by iterating the objects, ms (one run; not the workload's figure)"
        case .w6Seconds: "W6 s"
        case .w6CommitSeconds: "W6 s in the commit"
        case .w6MiB: "W6 file MiB"
        case .w6RawMiB: "W6 db+WAL MiB (before checkpoint)"
        case .w6Growth: "W6 growth (file after W6 / after W1)"
        }
    }

    func format(_ value: Double) -> String {
        switch self {
        case .w1Rate: String(format: "%.3f M", value / 1e6)
        case .w1Seconds, .w1CommitSeconds, .w6Seconds, .w6CommitSeconds, .w2Microseconds, .w6Growth: String(format: "%.3f", value)
        default: String(format: "%.2f", value)
        }
    }
}

/// What one repetition of one system measured (absent: not measured by that system).
struct Measurements {
    var values: [Metric: Double] = [:]
    subscript(metric: Metric) -> Double? {
        get {
            switch metric {
            case .w1Rate: values[.w1Seconds].map { Double(benchConfigCount) / $0 }
            case .w6Growth:
                if let w6 = values[.w6MiB], let w1 = values[.w1MiB] { w6 / w1 } else { nil }
            default: values[metric]
            }
        }
        set { values[metric] = newValue }
    }
}

nonisolated(unsafe) var benchConfigCount = 0

enum System: String, CaseIterable {
    case openrealm, capi, grdb, grdbRecords = "grdb-records"

    var title: String {
        switch self {
        case .openrealm: "OpenRealm Swift API"
        case .capi: "OpenRealm C API (from Swift)"
        case .grdb: "GRDB statements"
        case .grdbRecords: "GRDB records (W1 only)"
        }
    }

    func run(directory: String, _ config: BenchConfig) -> Measurements {
        switch self {
        case .openrealm: runOpenRealmSwift(directory: directory, config)
        case .capi: runOpenRealmC(directory: directory, config)
        case .grdb: runGRDB(directory: directory, config, records: false)
        case .grdbRecords: runGRDB(directory: directory, config, records: true)
        }
    }
}

// MARK: - Checks

/// The objects read back after W1 and W6 (untimed): first, middle, last.
func probeIndices(_ count: Int) -> [Int] { [0, count / 2, count - 1] }

func checkW2(_ system: String, _ config: BenchConfig, _ checksum: UInt64) {
    if checksum != config.expectedChecksum {
        fail("\(system): W2 read names with checksum \(String(checksum, radix: 16)), expected \(String(config.expectedChecksum, radix: 16))")
    }
}

func checkW3(_ system: String, _ config: BenchConfig, _ count: Int) {
    if count != config.expectedCount { fail("\(system): W3 counted \(count), expected \(config.expectedCount)") }
}

func checkW4(_ system: String, _ config: BenchConfig, _ sum: Double) {
    if abs(sum - config.expectedSum) > 1e-9 * config.expectedSum {
        fail("\(system): W4 summed \(sum), expected \(config.expectedSum)")
    }
}

// MARK: - Main

func usage() -> Never {
    printError("""
        usage: swiftbench [--count N] [--reps N] [--lookups N] [--w4-runs N] [--no-w3] [--w3-runs N] [--w1-only]
                          [--dir DIR] [--systems openrealm,capi,grdb,grdb-records] [--keep]
          --count N     Person objects (default 1000000)
          --reps N      repetitions, systems interleaved in each (default 3)
          --lookups N   W2 point lookups (default 1000000)
          --w4-runs N   W4 sums per repetition, the median is the figure (default 5)
          --no-w3       leave W3 (the count query) out; --w3-runs N queries per repetition (default 20)
          --w1-only     run W1 only (for profiling the insert path)
          --dir DIR     where the fresh files go (default: a temp dir on /work's file system)
          --systems L   a comma-separated subset, in run order (default openrealm,capi,grdb,grdb-records;
                        grdb-records runs W1 only)
          --keep        keep the files instead of removing them
          --async       run the asynchronous workloads instead (W5g, server-shaped; AsyncBench.swift)

        """)
    exit(2)
}

var config = BenchConfig()
var reps = 3
var baseDirectory: String?
var keep = false
var systems = System.allCases
var asyncMode = false
var arguments = CommandLine.arguments.dropFirst().makeIterator()
func number(_ argument: String?) -> Int {
    guard let argument, let value = Int(argument), value > 0 else { usage() }
    return value
}
while let argument = arguments.next() {
    switch argument {
    case "--count": config.count = number(arguments.next())
    case "--reps": reps = number(arguments.next())
    case "--lookups": config.lookups = number(arguments.next())
    case "--w4-runs": config.w4Runs = number(arguments.next())
    case "--no-w3": config.w3 = false
    case "--w3-runs": config.w3Runs = number(arguments.next())
    case "--w1-only": config.w1Only = true
    case "--dir":
        guard let directory = arguments.next() else { usage() }
        baseDirectory = directory
    case "--keep": keep = true
    case "--async": asyncMode = true
    case "--systems":
        guard let list = arguments.next() else { usage() }
        systems = list.split(separator: ",").map { name -> System in
            guard let system = System(rawValue: String(name)) else { usage() }
            return system
        }
        if systems.isEmpty { usage() }
    default: usage()
    }
}
benchConfigCount = config.count

if asyncMode {
    let directory = makeTemporaryDirectory(under: baseDirectory ?? defaultBaseDirectory(), prefix: "openrealm-swiftbench-async-")
    print("engine source: \(ProcessInfo.processInfo.environment["OPENREALM_REVISION"] ?? "(revision not given)")")
    print("peer:          GRDB 7.10.0 on SQLite \(sqliteVersion()) (DatabasePool: WAL; PRAGMA synchronous=FULL)")
    print("directory:     \(directory)\n")
    await runAsyncBench(reps: reps, runDirectory: directory, keep: keep)
    if !keep { removeTree(directory) }
    exit(0)
}

// What every system must read (untimed).
for k in 0..<config.lookups {
    config.expectedChecksum &+= nameHash(personName(lookupID(k, config.count) - 1))
}
for i in 0..<config.count {
    config.expectedSum += personScore(i)
    if personAge(i) >= 50 && personScore(i) < 0.5 { config.expectedCount += 1 }
}

let runDirectory = makeTemporaryDirectory(under: baseDirectory ?? defaultBaseDirectory(), prefix: "openrealm-swiftbench-")
var uname = utsname()
_ = Glibc.uname(&uname)
func cString<T>(_ tuple: T) -> String {
    withUnsafeBytes(of: tuple) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
}
let policy = sched_getscheduler(0)
let formatter = DateFormatter()
formatter.dateFormat = "yyyy-MM-dd HH:mm:ss 'UTC'"
formatter.timeZone = TimeZone(identifier: "UTC")

print("Swift API benchmark: \(config.count) Person objects, \(config.lookups) lookups, W4 median of \(config.w4Runs) sums"
      + (config.w3 ? ", W3 median of \(config.w3Runs) queries" : ", W3 not run"))
print("    \(reps) repetitions, systems interleaved in each (W1 W2 \(config.w3 ? "W3 " : "")W4 W6 per system), each on a fresh file")
print("date:        \(formatter.string(from: Date()))")
print("machine:     \(cpuModel()), \(sysconf(Int32(_SC_NPROCESSORS_ONLN))) online CPUs")
print("kernel:      \(cString(uname.sysname)) \(cString(uname.release))")
print("directory:   \(runDirectory)")
print("scheduling:  \(policy == SCHED_FIFO ? "SCHED_FIFO" : policy == SCHED_RR ? "SCHED_RR" : "SCHED_OTHER (not under chrt -f: figures are noisier)")")
print("engine:      OpenRealm \(String(cString: ce_engine_version())), source \(ProcessInfo.processInfo.environment["OPENREALM_REVISION"] ?? "(revision not given)")")
print("peer:        GRDB 7.10.0 on SQLite \(sqliteVersion()) (DatabasePool: WAL; PRAGMA synchronous=FULL)")
print("expected:    W2 name checksum \(String(config.expectedChecksum, radix: 16)), W3 count \(config.expectedCount), W4 sum \(config.expectedSum)")
print("file sizes:  OpenRealm: the .realm file; SQLite: the db after PRAGMA wal_checkpoint(TRUNCATE) (untimed)")
print("")

var results: [System: [Measurements]] = [:]
func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
    let fill = String(repeating: " ", count: max(0, width - text.count))
    return left ? text + fill : fill + text
}
func cell(_ value: Double?, _ metric: Metric) -> String { value.map { metric.format($0) } ?? "-" }
print("rep  system          W1 s  W1 Mobj/s  W1 MiB   W2 us   W3 ms    W4 ms    W6 s  W6 MiB  growth")
for rep in 1...reps {
    for system in systems {
        let directory = runDirectory + "/rep\(rep)-\(system.rawValue)"
        guard mkdir(directory, 0o755) == 0 else { fail("cannot create \(directory)") }
        let m = system.run(directory: directory, config)
        if !keep { removeTree(directory) }
        results[system, default: []].append(m)
        let cells = [cell(m[.w1Seconds], .w1Seconds), m[.w1Rate].map { String(format: "%.3f", $0 / 1e6) } ?? "-",
                     cell(m[.w1MiB], .w1MiB), cell(m[.w2Microseconds], .w2Microseconds), cell(m[.w3Milliseconds], .w3Milliseconds),
                     cell(m[.w4Milliseconds], .w4Milliseconds), cell(m[.w6Seconds], .w6Seconds), cell(m[.w6MiB], .w6MiB),
                     cell(m[.w6Growth], .w6Growth)]
        print(pad("\(rep)", 4, left: true) + " " + pad(system.rawValue, 12, left: true)
              + zip(cells, [7, 10, 7, 7, 7, 8, 7, 7, 7]).map { " " + pad($0, $1) }.joined()
              + "   (commit calls: W1 \(cell(m[.w1CommitSeconds], .w1CommitSeconds)) s, W6 \(cell(m[.w6CommitSeconds], .w6CommitSeconds)) s)")
        fflush(nil)
    }
}
if keep { print("(files kept in \(runDirectory))") } else { removeTree(runDirectory) }

@MainActor func spread(_ system: System, _ metric: Metric) -> Spread? {
    let values = (results[system] ?? []).compactMap { $0[metric] }
    return values.isEmpty ? nil : Spread(values)
}

print("\nSummary: median over \(reps) repetitions [min–max]\n")
print("| metric |" + systems.map { " \($0.title) |" }.joined())
print("|---|" + String(repeating: "---:|", count: systems.count))
for metric in Metric.allCases {
    let cells = systems.map { system -> String in
        guard let s = spread(system, metric) else { return " — |" }
        return " \(metric.format(s.median)) [\(metric.format(s.min))–\(metric.format(s.max))] |"
    }
    if cells.allSatisfy({ $0 == " — |" }) { continue }
    print("| \(metric.title) |" + cells.joined())
}

/// ours / peer: of the medians, and paired per repetition (median, min, max).
@MainActor func ratio(_ mine: System, _ peer: System, _ metric: Metric) -> (ofMedians: Double, paired: Spread)? {
    guard let a = spread(mine, metric), let b = spread(peer, metric) else { return nil }
    let pairs = zip(results[mine] ?? [], results[peer] ?? []).compactMap { x, y -> Double? in
        guard let u = x[metric], let v = y[metric] else { return nil }
        return u / v
    }
    return (a.median / b.median, Spread(pairs))
}

if systems.contains(.openrealm) {
    print("\nRatios OpenRealm Swift API / peer (objects/s: > 1 is faster; times and sizes: < 1 is faster/smaller)\n")
    print("| metric | peer | of medians | paired median | paired min–max |")
    print("|---|---|---:|---:|---:|")
    for metric in [Metric.w1Rate, .w1MiB, .w2Microseconds, .w3Milliseconds, .w4Milliseconds, .w6Seconds, .w6MiB, .w6Growth] {
        for peer in systems where peer != .openrealm {
            guard let r = ratio(.openrealm, peer, metric) else { continue }
            print(String(format: "| %@ | %@ | %.3f | %.3f | %.3f–%.3f |", metric.title as NSString, peer.rawValue as NSString,
                         r.ofMedians, r.paired.median, r.paired.min, r.paired.max))
        }
    }
    print("\nTargets (issue 6, docs/BENCHMARKS.md), on the medians:")
    for peer in [System.grdb, .grdbRecords] where systems.contains(peer) {
        if let r = ratio(.openrealm, peer, .w1Rate) {
            print(String(format: "  W1 Swift API >= 2x %@ objects/s:  %.3fx  %@", peer.rawValue as NSString, r.ofMedians,
                         (r.ofMedians >= 2 ? "met" : "NOT met") as NSString))
        }
    }
    if let r = ratio(.openrealm, .capi, .w1Rate) {
        print(String(format: "  W1 Swift API >= 0.5x the C API's objects/s:  %.3fx  %@", r.ofMedians,
                     (r.ofMedians >= 0.5 ? "met" : "NOT met") as NSString))
    }
    if let g = spread(.openrealm, .w6Growth) {
        print(String(format: "  W6 growth <= 1.25x:  %.3fx  %@", g.median, (g.median <= 1.25 ? "met" : "NOT met") as NSString))
    }
}
