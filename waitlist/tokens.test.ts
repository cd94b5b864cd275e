import { ConfigError, readEnv, serverConfig } from "../config/env";
import {
  confirmToken,
  confirmUrl,
  leaveToken,
  leaveUrl,
  newLeaveSecret,
  verifyConfirmToken,
  verifyLeaveToken,
} from "./tokens";

const secret = "a-secret-of-at-least-32-characters";

describe("the leave token", () => {
  it("names the address as stored and what it is listed under", () => {
    const token = leaveToken("Ada.Lovelace@Example.com", secret);
    expect(verifyLeaveToken(token, secret)).toEqual({
      email: "Ada.Lovelace@Example.com",
      key: "ada.lovelace@example.com",
    });
    expect(token).toMatch(/^[\w-]+\.[\w-]{43}$/);
  });

  it("keeps an address with characters beyond ASCII", () => {
    const token = leaveToken("zoë@exämple.com", secret);
    expect(verifyLeaveToken(token, secret)?.email).toBe("zoë@exämple.com");
  });

  it("is part of a link at the configured site", () => {
    expect(leaveUrl("ada@example.com", secret)).toBe(
      `https://jointandem.app/waitlist/leave?token=${leaveToken("ada@example.com", secret)}`,
    );
  });

  it("is invalid when any one character is changed, including base64's unused last bits", () => {
    const token = leaveToken("ada@example.com", secret);
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let tried = 0;
    for (let at = 0; at < token.length; at++) {
      if (token[at] === ".") continue;
      for (const replacement of alphabet) {
        if (replacement === token[at]) continue;
        const changed = `${token.slice(0, at)}${replacement}${token.slice(at + 1)}`;
        expect(verifyLeaveToken(changed, secret)).toBeUndefined();
        tried++;
      }
    }
    expect(tried).toBe((token.length - 1) * 63);
  });

  it("is invalid under another secret", () => {
    const token = leaveToken("ada@example.com", secret);
    expect(verifyLeaveToken(token, `${secret}!`)).toBeUndefined();
    expect(verifyLeaveToken(token, newLeaveSecret())).toBeUndefined();
  });

  it.each([
    ["empty", ""],
    ["not a string", 42],
    ["missing", undefined],
    ["without a signature", "YWRhQGV4YW1wbGUuY29t"],
    ["with a short signature", "YWRhQGV4YW1wbGUuY29t.abc"],
    ["with padding", `${leaveToken("ada@example.com", secret)}=`],
    ["with a second dot", `a.${leaveToken("ada@example.com", secret)}`],
    ["far too long", `${"A".repeat(5000)}.${"A".repeat(43)}`],
  ])("is refused when %s", (_name, token) => {
    expect(verifyLeaveToken(token, secret)).toBeUndefined();
  });

  it("refuses a correctly signed token that names no valid address, or one not in its stored form", () => {
    expect(verifyLeaveToken(leaveToken("not-an-address", secret), secret)).toBeUndefined();
    expect(verifyLeaveToken(leaveToken(" ada@example.com", secret), secret)).toBeUndefined();
    expect(verifyLeaveToken(leaveToken("e\u0301@example.com", secret), secret)).toBeUndefined();
  });

  it("makes secrets of 32 random bytes", () => {
    const secrets = new Set(Array.from({ length: 20 }, newLeaveSecret));
    expect(secrets.size).toBe(20);
    for (const made of secrets) expect(Buffer.from(made, "base64url")).toHaveLength(32);
  });
});

describe("WAITLIST_SECRET", () => {
  it("is optional: without it the store makes one", () => {
    expect(serverConfig(readEnv({})).leaveSecret).toBeUndefined();
    expect(serverConfig(readEnv({ WAITLIST_SECRET: "  " })).leaveSecret).toBeUndefined();
    expect(serverConfig(readEnv({ WAITLIST_SECRET: secret })).leaveSecret).toBe(secret);
  });

  it("refuses a value too short to be a secret, saying how to make one", () => {
    expect(() => serverConfig(readEnv({ WAITLIST_SECRET: "hunter2" }))).toThrow(ConfigError);
    expect(() => serverConfig(readEnv({ WAITLIST_SECRET: "hunter2" }))).toThrow(
      /^WAITLIST_SECRET must be at least 32 characters \(got 7 characters\); make one with: node -e /,
    );
  });
});

describe("the confirm token", () => {
  const createdAt = "2026-11-23T10:15:30.123Z";

  it("names the address and the signup it confirms", () => {
    const token = confirmToken("Ada.Lovelace@Example.com", createdAt, secret);
    expect(verifyConfirmToken(token, secret)).toEqual({
      email: "Ada.Lovelace@Example.com",
      key: "ada.lovelace@example.com",
      createdAt,
    });
    expect(confirmUrl("ada@example.com", createdAt, secret)).toBe(
      `https://jointandem.app/waitlist/confirm?token=${confirmToken("ada@example.com", createdAt, secret)}`,
    );
  });

  it("is never a leave token, and a leave token never confirms", () => {
    const leave = leaveToken("ada@example.com", secret);
    const confirm = confirmToken("ada@example.com", createdAt, secret);
    expect(verifyConfirmToken(leave, secret)).toBeUndefined();
    expect(verifyLeaveToken(confirm, secret)).toBeUndefined();
    // Not even with the parts rearranged: each is signed with its own link's path.
    const [email, , sig] = confirm.split(".");
    expect(verifyLeaveToken(`${email}.${sig}`, secret)).toBeUndefined();
    const [leaveEmail, leaveSig] = leave.split(".");
    const at = Buffer.from(createdAt).toString("base64url");
    expect(verifyConfirmToken(`${leaveEmail}.${at}.${leaveSig}`, secret)).toBeUndefined();
  });

  it("is invalid when any one character is changed, under another secret, or for another signup time", () => {
    const token = confirmToken("ada@example.com", createdAt, secret);
    for (let at = 0; at < token.length; at++) {
      if (token[at] === ".") continue;
      const changed = `${token.slice(0, at)}${token[at] === "A" ? "B" : "A"}${token.slice(at + 1)}`;
      expect(verifyConfirmToken(changed, secret)).toBeUndefined();
    }
    expect(verifyConfirmToken(token, `${secret}!`)).toBeUndefined();
    const [email, , sig] = token.split(".");
    const other = Buffer.from("2026-11-23T10:15:31.123Z").toString("base64url");
    expect(verifyConfirmToken(`${email}.${other}.${sig}`, secret)).toBeUndefined();
  });

  it.each(["", "a.b.c", "x".repeat(5000), 42, null])("is invalid: %j", (token) => {
    expect(verifyConfirmToken(token, secret)).toBeUndefined();
  });
});
