import { listeningOrigins, listeningSiteUrl } from "./listening-origins";

describe("where npm start's links point without SITE_URL", () => {
  it.each([
    ["a loopback address", "127.0.0.1", "http://localhost:9000"],
    ["IPv6's loopback address", "::1", "http://localhost:9000"],
    ["localhost", "localhost", "http://localhost:9000"],
    ["every address", "0.0.0.0", "http://localhost:9000"],
    ["every IPv6 address", "::", "http://localhost:9000"],
    ["an address of the network", "192.168.1.20", "http://192.168.1.20:9000"],
    ["an IPv6 address of the network", "fd00::20", "http://[fd00::20]:9000"],
    ["a host name", "tandem.example.org", "http://tandem.example.org:9000"],
  ])("on %s is the address a browser opens it at", (_name, host, url) => {
    expect(listeningSiteUrl(host, 9000)).toBe(url);
  });

  it("is an origin the server takes a post from, on a loopback address", () => {
    const url = listeningSiteUrl("127.0.0.1", 9000);
    expect(listeningOrigins({ localAddress: "127.0.0.1", localPort: 9000 })).toContain(new URL(url).origin);
  });
});
