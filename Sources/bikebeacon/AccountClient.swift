import BikebeaconAPI
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Owners

/// The few calls the command line makes to a bikebeacon server: log in, list the owner's bikes.
struct AccountClient {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let server: URL

    /// Accepts `https://host[:port][/base]`; refuses anything that is not an absolute http(s) URL.
    init(server text: String) throws(Failure) {
        let trimmed = text.hasSuffix("/") ? String(text.dropLast()) : text
        guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), url.host?.isEmpty == false else {
            throw Failure(description: "\"\(text)\" is not a server URL: write it like https://bikes.example.org")
        }
        server = url
    }

    /// `POST /v1/sessions`; returns the session token.
    func logIn(email: String, password: String) async throws(Failure) -> String {
        var request = URLRequest(url: server.appendingPathComponent("v1/sessions"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try? JSONEncoder().encode(Credentials(email: email, password: password))
        return try await send(request, as: Token.self).token
    }

    /// `GET /v1/bikes` with the session's token.
    func bikes(token: String) async throws(Failure) -> [Owners.Bike] {
        var request = URLRequest(url: server.appendingPathComponent("v1/bikes"))
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        return try await send(request, as: BikeList.self).bikes.map { Owners.Bike(name: $0.name, beacon: $0.beacon) }
    }

    private func send<T: Decodable>(_ request: URLRequest, as type: T.Type) async throws(Failure) -> T {
        var request = request
        request.timeoutInterval = 15
        let data: Data, response: URLResponse
        do {
            (data, response) = try await URLSession.shared.data(for: request)
        } catch {
            throw Failure(description: "cannot reach \(server.absoluteString): \(error.localizedDescription)")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            if let body = try? JSONDecoder().decode(ErrorBody.self, from: data) {
                throw Failure(description: "\(server.absoluteString) said: \(body.message) (\(body.error), HTTP \(status))")
            }
            throw Failure(description: "\(server.absoluteString) answered HTTP \(status): is this a bikebeacon server?")
        }
        guard let value = try? JSONDecoder().decode(T.self, from: data) else {
            throw Failure(description: "\(server.absoluteString) sent an answer this version does not understand: is this a bikebeacon server?")
        }
        return value
    }
}
