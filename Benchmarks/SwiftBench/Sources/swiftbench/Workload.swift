// Workload.swift — the Person workload of docs/BENCHMARKS.md, as bench_common.c and
// bench_objects.c define it (same ids, names, ages, scores, lookup stream and name hash), plus
// timing, medians and the run directory.

import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// splitmix64, as bench_common.c.
@inline(__always)
func splitmix64(_ x: UInt64) -> UInt64 {
    var z = x &+ 0x9E37_79B9_7F4A_7C15
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
}

/// Person i (0-based): id = i + 1, age = i % 100, score = splitmix64(i ^ 0x5EED) mapped to
/// [0, 1) (top 53 bits * 2^-53), name = "name-<i>".
@inline(__always) func personID(_ i: Int) -> Int { i + 1 }
@inline(__always) func personAge(_ i: Int) -> Int { i % 100 }
@inline(__always) func personScore(_ i: Int) -> Double {
    Double(splitmix64(UInt64(i) ^ 0x5EED) >> 11) * 0x1.0p-53
}

/// Writes "name-<i>" (ASCII, no terminator) at `out`, which has room for it (15 bytes while
/// i < 10^10); returns the length. Without String interpolation, as bench_common.c formats without snprintf: building
/// the Person is common to every system and should cost little next to what is measured.
@inline(__always)
func formatName(_ i: Int, _ out: UnsafeMutablePointer<UInt8>) -> Int {
    out[0] = 0x6E; out[1] = 0x61; out[2] = 0x6D; out[3] = 0x65; out[4] = 0x2D  // "name-"
    var value = UInt64(i)
    var digits = 0
    repeat {
        digits += 1
        value /= 10
    } while value != 0
    value = UInt64(i)
    var position = 5 + digits
    repeat {
        position -= 1
        out[position] = UInt8(truncatingIfNeeded: 0x30 + value % 10)
        value /= 10
    } while value != 0
    return 5 + digits
}

/// The name of Person i as a Swift String: a small string (up to 15 UTF-8 bytes live inline in
/// the String, so no allocation; "name-" and up to 10 digits fit). A capacity above 15 would
/// allocate heap storage for every name.
@inline(__always)
func personName(_ i: Int) -> String {
    String(unsafeUninitializedCapacity: 15) { buffer in formatName(i, buffer.baseAddress!) }
}

/// The id of W2's lookup k (bench_objects.c's lookup_id).
@inline(__always)
func lookupID(_ k: Int, _ count: Int) -> Int {
    Int(splitmix64(UInt64(k)) % UInt64(count)) + 1
}

/// bench_objects.c's name_hash: an order-sensitive multiply-xor over 8-byte chunks, so that the
/// names are really read (the same small cost for every system).
@inline(__always)
func nameHash(_ data: UnsafeRawPointer?, _ length: Int) -> UInt64 {
    var h = UInt64(length) &* 0x9E37_79B9_7F4A_7C15
    var remaining = length
    var pointer = data
    while remaining > 0, let p = pointer {
        let n = min(remaining, 8)
        var chunk: UInt64 = 0
        withUnsafeMutableBytes(of: &chunk) { $0.baseAddress!.copyMemory(from: p, byteCount: n) }
        h = (h ^ chunk) &* 0xFF51_AFD7_ED55_8CCD
        h ^= h >> 32
        pointer = p + n
        remaining -= n
    }
    return h
}

@inline(__always)
func nameHash(_ name: String) -> UInt64 {
    var name = name
    return name.withUTF8 { nameHash(UnsafeRawPointer($0.baseAddress), $0.count) }
}

// MARK: - Timing and statistics

@inline(__always)
func nowNs() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

func secondsSince(_ t0: UInt64) -> Double { Double(nowNs() - t0) / 1e9 }

/// The median, and the spread (min, max), of some values.
struct Spread {
    var median: Double
    var min: Double
    var max: Double

    init(_ values: [Double]) {
        let sorted = values.sorted()
        precondition(!sorted.isEmpty)
        let n = sorted.count
        median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2
        min = sorted[0]
        max = sorted[n - 1]
    }
}

// MARK: - Files

func fileSize(_ path: String) -> Double {
    var st = stat()
    guard stat(path, &st) == 0 else { return 0 }
    return Double(st.st_size)
}

func mebibytes(_ bytes: Double) -> Double { bytes / 1_048_576 }

/// A directory for the runs' files: $TMPDIR, /var/tmp or /tmp, the first that is writable and on
/// the same file system as /work (so never a tmpfs, where fsync is free), else /work.
func defaultBaseDirectory() -> String {
    var work = stat()
    let haveWork = stat("/work", &work) == 0
    let candidates = [getenv("TMPDIR").map { String(cString: $0) }, "/var/tmp", "/tmp"].compactMap { $0 }
    for dir in candidates {
        var st = stat()
        guard stat(dir, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR, access(dir, W_OK) == 0 else { continue }
        if haveWork, st.st_dev != work.st_dev { continue }
        return dir
    }
    return haveWork ? "/work" : "."
}

func makeTemporaryDirectory(under base: String, prefix: String) -> String {
    var template = Array((base + "/" + prefix + "XXXXXX").utf8CString)
    guard let result = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
        fail("cannot create a directory under \(base)")
    }
    return String(cString: result)
}

func removeTree(_ path: String) {
    var st = stat()
    guard lstat(path, &st) == 0 else { return }
    if (st.st_mode & S_IFMT) == S_IFDIR, let dir = opendir(path) {
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name != "." && name != ".." { names.append(name) }
        }
        closedir(dir)
        for name in names { removeTree(path + "/" + name) }
        rmdir(path)
    } else {
        unlink(path)
    }
}

/// Prints what failed and exits: a benchmark that goes on after a failure measures nothing.
func fail(_ message: String) -> Never {
    printError("swiftbench: \(message)\n")
    exit(1)
}

/// The CPU's model name from /proc/cpuinfo.
func cpuModel() -> String {
    guard let file = fopen("/proc/cpuinfo", "r") else { return "unknown" }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 512)
    while fgets(&line, 512, file) != nil {
        let text = line.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        if text.hasPrefix("model name"), let colon = text.firstIndex(of: ":") {
            return text[text.index(after: colon)...].trimmingSpaces()
        }
    }
    return "unknown"
}

extension StringProtocol {
    func trimmingSpaces() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" || first == "\n" { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "\t" || last == "\n" { scalars.removeLast() }
        return String(scalars)
    }
}

func printError(_ text: String) {
    FileHandle.standardError.write(Data(text.utf8))
}
