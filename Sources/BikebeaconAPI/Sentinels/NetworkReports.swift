#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `GET /v1/network/reports` (operators only, #43): the reports of hidden tags that wait on the operator, so none
/// waits unseen. Only references and states: the reporter's words stay in `bikebeacon-server abuse show`.
public struct NetworkReportList: Codable, Sendable, Equatable {
    /// Reports whose case seals a bike now.
    public var open: Int
    /// Reports the breaker held: they seal nothing until `abuse seal`.
    public var held: Int
    public var reports: [NetworkReport]

    public init(open: Int, held: Int, reports: [NetworkReport]) {
        self.open = open
        self.held = held
        self.reports = reports
    }
}

public struct NetworkReport: Codable, Sendable, Equatable {
    public var reference: String
    /// `open` or `held`.
    public var status: String
    public var reportedAt: String
    /// The case it belongs to (the reference of the report that sealed the bike); absent while held.
    public var caseId: String?

    public init(reference: String, status: String, reportedAt: String, caseId: String?) {
        self.reference = reference
        self.status = status
        self.reportedAt = reportedAt
        self.caseId = caseId
    }
}
