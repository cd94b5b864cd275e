import nodemailer from "nodemailer";
import { netlifySpeed, SimulatedTime, type Latencies } from "./latency";
import { startBenchMail } from "./mail";

/* The bench's mail provider on the simulated clock: what a connection costs, and how many it takes at once. */

describe("the bench's mail provider", () => {
  it("charges each connection its TLS and AUTH on the simulated clock, and refuses one past SES's 10 with 421", async () => {
    let now = 0;
    const time = new SimulatedTime(
      () => now,
      (ms) => void (now = ms),
    );
    const latencies: Latencies = { ...netlifySpeed, mail: { ms: 500, slowEvery: 0, slowMs: 0, connectMs: 200 } };
    const { server } = await startBenchMail(time, { provider: "ses", latencies, seed: 1 });
    // A connection per message, as the bench's functions send.
    const transport = nodemailer.createTransport(`${server.url}?pool=false`);
    try {
      const outcomes = await Promise.all(
        Array.from({ length: 11 }, async (_, i) => {
          const began = now;
          try {
            await transport.sendMail({ from: "hello@jointandem.app", to: `b${i}@example.com`, text: "hi" });
            return now - began;
          } catch (error) {
            return (error as { responseCode?: number }).responseCode;
          }
        }),
      );
      // Ten took their connection's 200 ms and their message's 500 ms, at once; the eleventh was refused at once.
      expect([...outcomes].sort()).toEqual([421, ...Array.from({ length: 10 }, () => 700)]);
      expect(server.counters).toMatchObject({ sent: 10, maxConnections: 11, refusedConnections: 1 });
      expect(now).toBe(700);
    } finally {
      transport.close();
      await server.close();
      time.close();
    }
  });
});
