import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createMailer } from "./mailer";

const mode = (one: string) => (statSync(one).mode & 0o777).toString(8);
const message = (to: string, id: string) => ({
  to,
  subject: "Confirm your spot",
  text: "a confirm link",
  html: "<p>a confirm link</p>",
  messageId: `<${id}@jointandem.app>`,
  headers: {},
});

describe("the outbox (no SMTP_URL)", () => {
  let dir: string;
  let umask: number;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "outbox-"));
    umask = process.umask(0o022);
  });
  afterEach(() => {
    process.umask(umask);
    rmSync(dir, { recursive: true, force: true });
  });

  it("keeps the folder (0700) and each message (0600) to this user under umask 022, an old 0755 folder too", async () => {
    const outboxDir = path.join(dir, "data", "outbox");
    const mailer = createMailer({ from: "hello@jointandem.app", outboxDir });
    await mailer.send(message("ada@example.com", "one"));
    expect(mode(outboxDir)).toBe("700");
    const [name] = readdirSync(outboxDir);
    expect(mode(path.join(outboxDir, name!))).toBe("600");
    mailer.close();

    const oldDir = path.join(dir, "old-outbox");
    mkdirSync(oldDir, { mode: 0o755 });
    chmodSync(oldDir, 0o755);
    const later = createMailer({ from: "hello@jointandem.app", outboxDir: oldDir });
    await later.send(message("grace@example.com", "two"));
    expect(mode(oldDir)).toBe("700");
    expect(readdirSync(oldDir).map((one) => mode(path.join(oldDir, one)))).toEqual(["600"]);
    later.close();
  });
});
