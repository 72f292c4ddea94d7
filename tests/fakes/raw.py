"""A provider's side of one HTTP/1.1 exchange on a raw socket, for tests that need bytes no HTTP
server would send (or a provider that never answers)."""


def read_request(connection):
    """One request read off `connection`: its body, read to its Content-Length."""
    received = b""
    while b"\r\n\r\n" not in received:
        received += connection.recv(65536)
    head, _, body = received.partition(b"\r\n\r\n")
    headers = dict(line.lower().split(b":", 1) for line in head.split(b"\r\n")[1:])
    length = int(headers[b"content-length"])
    while len(body) < length:
        body += connection.recv(65536)
    return body
