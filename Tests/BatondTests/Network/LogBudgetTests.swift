@testable import batond
import XCTest

/// What one source may make batond log: its budget of lines, then one line saying the rest
/// are dropped and for how long, then, once the budget allows again, a count of those left out.
final class LogBudgetTests: XCTestCase {
    func testAFloodLogsItsBudgetAndOneLineMore() {
        var budget = LogBudget(lines: 3, per: 10)
        var verdicts: [LogBudget.Verdict] = []
        for index in 0..<1000 { verdicts.append(budget.admit("mallory", now: 100 + Double(index) / 1000)) }
        XCTAssertEqual(Array(verdicts.prefix(4)), [.log(leftOut: 0), .log(leftOut: 0), .log(leftOut: 0), .stop(seconds: 10)])
        XCTAssertTrue(verdicts.dropFirst(4).allSatisfy { $0 == .drop })
        XCTAssertEqual(budget.admit("beta", now: 100.5), .log(leftOut: 0), "another source has its own budget")
        XCTAssertEqual(budget.admit("mallory", now: 110.5), .log(leftOut: 997), "the next line says how many were left out")
        XCTAssertEqual(budget.admit("mallory", now: 110.6), .log(leftOut: 0))
    }

    func testTheLinesLeftOutAreRememberedForABoundedNumberOfSources() {
        var budget = LogBudget(lines: 1, per: 60, maximumKeys: 4)
        for index in 0..<100 {
            XCTAssertEqual(budget.admit("host \(index)", now: Double(index)), .log(leftOut: 0))
            XCTAssertEqual(budget.admit("host \(index)", now: Double(index)), .stop(seconds: 60))
        }
    }
}
