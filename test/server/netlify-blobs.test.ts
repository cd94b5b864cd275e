import { getDeployStore, getStore, type Store } from "@netlify/blobs";
import { blobsStoreName, type BlobsStore } from "../../waitlist/stores/blobs-store";
import { startLocalBlobs, type LocalBlobs } from "../support/blobs";
import {
  form,
  formType,
  request,
  serverForEachTest,
  signUpForMail,
  signupBody,
  type TestServer,
} from "../support/harness";
import { patience } from "../support/patience";
import { atServer, confirmLinks, leaveLinks, startSmtpServer, type TestSmtpServer } from "../support/smtp";

/*
 * "Once" on Netlify Blobs, where Netlify enforces it. First, the local Blobs
 * server the tests run (test/support/blobs-server.mjs): does it refuse what
 * Netlify's service refuses? @netlify/blobs' own client, over real HTTP, is
 * the judge: it sends onlyIfMatch as If-Match and onlyIfNew as
 * If-None-Match: *, and reads a 412 as `modified: false`. Then the waitlist
 * as Netlify runs it over that server (the functions behind the edge's
 * stand-in, a real SMTP server), in the bursts the store's compare-and-swaps
 * are for.
 */

jest.setTimeout(patience(30_000));

describe("the local Blobs server, where Netlify enforces a conditional write", () => {
  let blobs: LocalBlobs;
  beforeEach(async () => {
    blobs = await startLocalBlobs();
  });
  afterEach(() => blobs.stop());

  /** The same store through Netlify's API, as the founders' commands reach it: signed URLs for reads and writes. */
  const throughApi = () =>
    getStore({ name: blobsStoreName, siteID: blobs.siteID, token: blobs.token, apiURL: blobs.url });
  /** A deploy's store in its region, as a deploy preview's functions reach it. */
  const deployStore = () =>
    getDeployStore({
      name: blobsStoreName,
      deployID: "6543210fedcba9876543210f",
      siteID: blobs.siteID,
      token: blobs.token,
      edgeURL: blobs.url,
      uncachedEdgeURL: blobs.url,
      region: "us-east-2",
      consistency: "strong",
    });
  const clients: [string, () => Store][] = [
    ["a function's edge access", () => blobs.store()],
    ["Netlify's API", throughApi],
    ["a deploy's store in its region", deployStore],
  ];

  it.each(clients)(
    "gives through %s an ETag with every read, a new one with every write, even two within a millisecond",
    async (_name, client) => {
      const store = client();
      const written = [];
      for (let n = 0; n < 5; n++) written.push((await store.set("k", `v${n}`)).etag);
      expect(written.every((etag) => typeof etag === "string" && etag.length > 2)).toBe(true);
      expect(new Set(written).size).toBe(5);
      const read = await store.getWithMetadata("k", { consistency: "strong" });
      expect(read).toMatchObject({ data: "v4", etag: written[4] });
      // The listing's ETag is the read's.
      expect((await store.list()).blobs).toEqual([{ key: "k", etag: written[4] }]);
    },
  );

  it.each(clients)(
    "refuses through %s a write based on a read another write has overtaken, and keeps the other's",
    async (_name, client) => {
      const store = client();
      await store.setJSON("record", { n: 0 });
      const first = await store.getWithMetadata("record", { type: "json", consistency: "strong" });
      const second = await store.getWithMetadata("record", { type: "json", consistency: "strong" });
      expect(second!.etag).toBe(first!.etag);
      await expect(store.setJSON("record", { n: 1 }, { onlyIfMatch: first!.etag! })).resolves.toMatchObject({
        modified: true,
      });
      await expect(store.setJSON("record", { n: 2 }, { onlyIfMatch: second!.etag! })).resolves.toEqual({
        modified: false,
      });
      expect(await store.get("record", { type: "json", consistency: "strong" })).toEqual({ n: 1 });
      // A key that is not there matches no ETag.
      await expect(store.set("absent", "x", { onlyIfMatch: first!.etag! })).resolves.toEqual({ modified: false });
      expect(await store.get("absent", { consistency: "strong" })).toBeNull();
    },
  );

  it.each(clients)(
    "refuses through %s onlyIfNew on a key that is there, and takes it again once the key is deleted",
    async (_name, client) => {
      const store = client();
      await expect(store.set("once", "first", { onlyIfNew: true })).resolves.toMatchObject({ modified: true });
      await expect(store.set("once", "second", { onlyIfNew: true })).resolves.toEqual({ modified: false });
      expect(await store.get("once", { consistency: "strong" })).toBe("first");
      await store.delete("once");
      await expect(store.set("once", "third", { onlyIfNew: true })).resolves.toMatchObject({ modified: true });
      expect(await store.get("once", { consistency: "strong" })).toBe("third");
    },
  );

  it("lets exactly one of 20 writers holding the same ETag write, and one of 20 onlyIfNew writers create", async () => {
    // Twenty clients, as twenty function instances have, each with its own connection.
    const stores = Array.from({ length: 20 }, () => blobs.store());
    await stores[0]!.set("contended", "0");
    const { etag } = (await stores[0]!.getWithMetadata("contended", { consistency: "strong" }))!;
    expect(etag).toBeDefined();
    const swaps = await Promise.all(
      stores.map((store, n) => store.set("contended", `writer ${n}`, { onlyIfMatch: etag! })),
    );
    expect(swaps.filter((swap) => swap.modified)).toHaveLength(1);
    const winner = swaps.findIndex((swap) => swap.modified);
    expect(await stores[0]!.get("contended", { consistency: "strong" })).toBe(`writer ${winner}`);

    const creates = await Promise.all(stores.map((store, n) => store.set("new", `writer ${n}`, { onlyIfNew: true })));
    expect(creates.filter((create) => create.modified)).toHaveLength(1);
  });

  it("lands every one of 20 read-modify-writes of one key that retry when refused: none lost", async () => {
    const stores = Array.from({ length: 20 }, () => blobs.store());
    await stores[0]!.setJSON("counter", { n: 0, by: [] });
    const increment = async (store: Store, who: number) => {
      for (;;) {
        const found = await store.getWithMetadata("counter", { type: "json", consistency: "strong" });
        const { n, by } = found!.data as { n: number; by: number[] };
        const { modified } = await store.setJSON(
          "counter",
          { n: n + 1, by: [...by, who] },
          { onlyIfMatch: found!.etag! },
        );
        if (modified) return;
      }
    };
    await Promise.all(stores.map((store, who) => increment(store, who)));
    const counter = (await stores[0]!.get("counter", { type: "json", consistency: "strong" })) as {
      n: number;
      by: number[];
    };
    expect(counter.n).toBe(20);
    expect([...counter.by].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, n) => n));
  });

  it("keeps no folder once its blobs are deleted, as Netlify has none, and loses no write made beside the deletes", async () => {
    // Filed in folders as the store files its notes (pending/<h>/<stamp>): 20 writers, 4 folders, each writer's
    // notes written and deleted while the others write theirs, then one blob of each writer kept.
    const stores = Array.from({ length: 20 }, () => blobs.store());
    await Promise.all(
      stores.map(async (store, n) => {
        for (let i = 0; i < 5; i++) {
          await store.set(`notes/${n % 4}/${n}-${i}`, "");
          await store.delete(`notes/${n % 4}/${n}-${i}`);
          await store.set(`gone/${n}/${i}`, "");
          await store.delete(`gone/${n}/${i}`);
        }
        await store.set(`notes/${n % 4}/kept-${n}`, "");
      }),
    );
    const kept = (await stores[0]!.list({ prefix: "notes/" })).blobs.map(({ key }) => key);
    expect(kept.sort()).toEqual(stores.map((_, n) => `notes/${n % 4}/kept-${n}`).sort());
    expect(await stores[0]!.list({ prefix: "gone/", directories: true })).toEqual({ blobs: [], directories: [] });
  });
});

describe("the local Blobs server as slow as Netlify (its latency option)", () => {
  let blobs: LocalBlobs;
  afterEach(() => blobs.stop());

  it("answers every third request 503 after its wait, and the client, trying again, gets every answer", async () => {
    blobs = await startLocalBlobs({ latency: { medianMs: 20, failEvery: 3 } });
    const store = blobs.store();
    // Requests 1 to 8: set a, set b, set c (503), set c again, get a, get b (503), get b again, get c.
    for (const key of ["a", "b", "c"]) await store.set(key, `value of ${key}`);
    const values = [];
    for (const key of ["a", "b", "c"]) values.push(await store.get(key));
    expect(values).toEqual(["value of a", "value of b", "value of c"]);
    await blobs.settled();
    expect(blobs.unavailable).toEqual([
      `/${blobs.siteID}/site:${blobsStoreName}/c`,
      `/${blobs.siteID}/site:${blobsStoreName}/b`,
    ]);
    // A 503 is no operation: the server made each of the six once.
    expect(blobs.operations.map((operation) => operation.type)).toEqual(["set", "set", "set", "get", "get", "get"]);
  });
});

describe("the waitlist on Netlify Blobs, at the same moment", () => {
  let smtp: TestSmtpServer;
  beforeEach(async () => {
    smtp = await startSmtpServer();
  });
  afterEach(() => smtp.close());
  const server = serverForEachTest("netlify", () => ({ smtpUrl: smtp.url }));

  const signUp = (email: string) =>
    request(`${server().url}/`, {
      method: "POST",
      headers: { ...formType, Accept: "text/plain" },
      body: signupBody(email),
    });
  const oneClick = (link: string) =>
    request(atServer(server().url, link), { method: "POST", headers: formType, body: "List-Unsubscribe=One-Click" });
  const pressConfirm = (link: string) =>
    request(`${server().url}/waitlist/confirm`, {
      method: "POST",
      headers: { ...formType, Accept: "text/html", Origin: server().url },
      body: form({ token: new URL(link).searchParams.get("token")! }),
    });
  /** What the founders' commands read: every signup still listed, and the departures. */
  const listed = async (on: TestServer) => (await on.signups()).map((signup) => signup.email);
  const departures = (on: TestServer) => on.withStore((store) => store.departureCounts());
  /** The sweep's filing of the list: the ledger blob a leave erases its row from. */
  const fold = (on: TestServer) => on.withStore((store) => (store as BlobsStore).fold());
  const answered = (replies: { status: number }[]) => [...new Set(replies.map((reply) => reply.status))];

  it("stores and mails one address once when 20 signups of it arrive together", async () => {
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, n) => signUp(n % 2 ? "Same@Example.com" : "same@example.com")),
    );
    expect(answered(replies)).toEqual([200]);
    await server().outbox();
    expect(await listed(server())).toHaveLength(1);
    expect(smtp.deliveries).toHaveLength(1);
    expect(server().logs).toEqual([]);
  });

  it("sends 2 of 20 confirmations to one mailbox signed up at once under 20 spellings: the day's cap holds, its third kept for the mailbox's own address", async () => {
    const replies = await Promise.all(Array.from({ length: 20 }, (_, n) => signUp(`anna+${n}@example.com`)));
    expect(answered(replies)).toEqual([200]);
    await server().outbox();
    expect(smtp.deliveries).toHaveLength(2);
    expect(await server().withStore((store) => store.confirmationCounts())).toEqual({
      sent: 2,
      pending: 0,
      failed: 18,
    });
  });

  it("answers 20 one-click leaves of one address at once, each 200, and keeps nothing of it", async () => {
    const { mail } = await signUpForMail(server(), smtp, "ada@example.com");
    await signUpForMail(server(), smtp, "grace@example.com");
    await fold(server());
    const replies = await Promise.all(Array.from({ length: 20 }, () => oneClick(leaveLinks(mail).header)));
    expect(answered(replies)).toEqual([200]);
    await fold(server());
    expect(await listed(server())).toEqual(["grace@example.com"]);
    expect(await departures(server())).toEqual({ left: 1, pruned: 0, afterWave: 0 });
    expect(server().logs).toEqual([]);
  });

  it("answers 20 one-click leaves at once of 20 addresses the sweep filed side by side, each 200, and keeps none", async () => {
    const emails = Array.from({ length: 20 }, (_, n) => `leaver${n}@example.com`);
    const mails = [];
    for (const email of emails) mails.push((await signUpForMail(server(), smtp, email)).mail);
    await signUpForMail(server(), smtp, "stays@example.com");
    await fold(server());
    const replies = await Promise.all(mails.map((mail) => oneClick(leaveLinks(mail).header)));
    expect(answered(replies)).toEqual([200]);
    await fold(server());
    expect(await listed(server())).toEqual(["stays@example.com"]);
    expect(await departures(server())).toEqual({ left: 20, pruned: 0, afterWave: 0 });
    expect(server().logs).toEqual([]);
  });

  it("lets a one-click leave pressed with the confirm button at once win: nothing of the address comes back", async () => {
    const emails = Array.from({ length: 10 }, (_, n) => `both${n}@example.com`);
    const mails = [];
    for (const email of emails) mails.push((await signUpForMail(server(), smtp, email)).mail);
    await fold(server());
    const replies = await Promise.all(
      mails.flatMap((mail) => [pressConfirm(confirmLinks(mail).text), oneClick(leaveLinks(mail).header)]),
    );
    // A confirm that came second finds the address gone: 410, "no longer on the list".
    expect(replies.every((reply, n) => (n % 2 ? reply.status === 200 : [200, 410].includes(reply.status)))).toBe(true);
    await fold(server());
    expect(await listed(server())).toEqual([]);
    expect(await departures(server())).toEqual({ left: 10, pruned: 0, afterWave: 0 });
    // Nothing logged but the confirms that came second: a 410 logs its reason, as every refusal does.
    const late = "waitlist-confirm: POST /waitlist/confirm 410 - The address left the waitlist";
    expect(server().logs.filter((line) => !line.startsWith(late))).toEqual([]);
  });
});
