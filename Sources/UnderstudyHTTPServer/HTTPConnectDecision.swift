import UnderstudyHTTP
import UnderstudyIO

/// How the server answers a `CONNECT host:port` (a client using it as an HTTPS proxy).
public enum HTTPConnectDecision: Sendable {
    /// Refuse with this response; the connection closes after it.
    case refuse(HTTPResponse)
    /// Answer 200, then serve HTTP inside the tunnel, under `layer` (TLS terminated here, with the
    /// certificate of the host the client asked for): nothing is dialled out.
    case serve(ConnectionLayer)
    /// Answer 200, then give the connection to this handler (a tunnel to somewhere else).
    case handOff(@Sendable () -> any ConnectionHandler)
    /// Connect to `host:port` (resolved off the loop), then answer 200 and pass the bytes through
    /// both ways; 502 if it cannot be reached.
    case passThrough(host: String, port: Int)
}
