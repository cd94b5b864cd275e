import { ConfigError, readEnv, waitlistConfig } from "../config/env";
import {
  confirmToken,
  confirmUrl,
  legacyConfirmToken,
  legacyLeaveToken,
  leaveToken,
  leaveUrl,
  newLinkSecret,
  verifyConfirmToken,
  verifyLeaveToken,
} from "./tokens";

const secret = "a-secret-of-at-least-32-characters";
const createdAt = "2026-11-23T10:15:30.123Z";
const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** Every spelling of the address a link could give away: as typed, lower-cased, and in base64 or hex of either. */
function spellings(email: string): string[] {
  return [email, email.toLowerCase()].flatMap((text) => [
    text,
    Buffer.from(text).toString("base64url"),
    Buffer.from(text).toString("base64"),
    Buffer.from(text).toString("hex"),
    encodeURIComponent(text),
  ]);
}

describe.each([
  ["leave", leaveToken, verifyLeaveToken, leaveUrl, "/waitlist/leave"],
  ["confirm", confirmToken, verifyConfirmToken, confirmUrl, "/waitlist/confirm"],
] as const)("the %s token", (_name, make, verify, url, path) => {
  it("names the address as stored, what it is listed under, and the signup it was made for", () => {
    expect(verify(make("Ada.Lovelace@example.com", createdAt, secret), secret)).toEqual({
      email: "Ada.Lovelace@example.com",
      key: "ada.lovelace@example.com",
      createdAt,
    });
    expect(verify(make("zoë@exämple.com", createdAt, secret), secret)?.email).toBe("zoë@exämple.com");
  });

  it("carries no address in any encoding, and no two links are alike", () => {
    const email = "Maya.Creator@Example.com";
    const tokens = Array.from({ length: 20 }, () => make(email, createdAt, secret));
    expect(new Set(tokens).size).toBe(20);
    for (const token of tokens) {
      expect(token).toMatch(/^[\w-]+$/);
      for (const spelling of [...spellings(email), ...spellings("maya.creator"), ...spellings(createdAt)]) {
        expect(token.toLowerCase()).not.toContain(spelling.toLowerCase().slice(0, 12));
      }
    }
  });

  it("is part of a link at the configured site", () => {
    const link = new URL(url("ada@example.com", createdAt, secret, "https://jointandem.app"));
    expect(`${link.origin}${link.pathname}`).toBe(`https://jointandem.app${path}`);
    expect(verify(link.searchParams.get("token"), secret)?.key).toBe("ada@example.com");
  });

  it("is invalid when any one character is changed, and under another secret", () => {
    const token = make("ada@example.com", createdAt, secret);
    let tried = 0;
    for (let at = 0; at < token.length; at++) {
      for (const replacement of alphabet) {
        if (replacement === token[at]) continue;
        expect(verify(`${token.slice(0, at)}${replacement}${token.slice(at + 1)}`, secret)).toBeUndefined();
        tried++;
      }
    }
    expect(tried).toBe(token.length * 63);
    expect(verify(token, `${secret}!`)).toBeUndefined();
    expect(verify(token, newLinkSecret())).toBeUndefined();
  });

  it.each([
    ["empty", ""],
    ["not a string", 42],
    ["missing", undefined],
    ["null", null],
    ["too short to hold anything", "AAAA"],
    ["far too long", "A".repeat(5000)],
    ["with a dot", "a.b.c"],
  ])("is refused when %s", (_case, token) => {
    expect(verify(token, secret)).toBeUndefined();
  });

  it("refuses a token of ours that names no valid address or no signup time", () => {
    expect(verify(make("not-an-address", createdAt, secret), secret)).toBeUndefined();
    expect(verify(make("ada\u200B@example.com", createdAt, secret), secret)).toBeUndefined();
    expect(verify(make("ada@example.com", "yesterday", secret), secret)).toBeUndefined();
  });

  it.each([
    ["vict\u0456m@example.com", "vict\u0456m@example.com"],
    ["\u017Ftefan@example.com", "\u017Ftefan@example.com"],
    ["a@p\u0430ypal.com", "a@xn--pypal-4ve.com"],
  ])(
    "names %s, a look-alike the form refuses now, which the list may hold from before: its link must still work",
    (email, key) => {
      expect(verify(make(email, createdAt, secret), secret)).toEqual({ email, key, createdAt });
    },
  );

  it("names a signup stored before addresses had one canonical form by that form, under the same key", () => {
    expect(verify(make("Ada@EXAMPLE.com", createdAt, secret), secret)).toEqual({
      email: "Ada@example.com",
      key: "ada@example.com",
      createdAt,
    });
  });
});

describe("the two tokens", () => {
  it("never stand in for each other", () => {
    expect(verifyConfirmToken(leaveToken("ada@example.com", createdAt, secret), secret)).toBeUndefined();
    expect(verifyLeaveToken(confirmToken("ada@example.com", createdAt, secret), secret)).toBeUndefined();
    expect(verifyConfirmToken(legacyLeaveToken("ada@example.com", secret), secret)).toBeUndefined();
    expect(verifyLeaveToken(legacyConfirmToken("ada@example.com", createdAt, secret), secret)).toBeUndefined();
  });

  it("makes secrets of 32 random bytes", () => {
    const secrets = new Set(Array.from({ length: 20 }, newLinkSecret));
    expect(secrets.size).toBe(20);
    for (const made of secrets) expect(Buffer.from(made, "base64url")).toHaveLength(32);
  });
});

describe("links mailed before tokens were sealed", () => {
  it("still leave, naming the address but no signup", () => {
    expect(verifyLeaveToken(legacyLeaveToken("Ada@Example.com", secret), secret)).toEqual({
      email: "Ada@example.com",
      key: "ada@example.com",
    });
  });

  it("still confirm the signup they name", () => {
    expect(verifyConfirmToken(legacyConfirmToken("ada@example.com", createdAt, secret), secret)).toEqual({
      email: "ada@example.com",
      key: "ada@example.com",
      createdAt,
    });
  });

  it("are invalid when any one character is changed, including base64's unused last bits", () => {
    for (const [token, verify] of [
      [legacyLeaveToken("ada@example.com", secret), verifyLeaveToken],
      [legacyConfirmToken("ada@example.com", createdAt, secret), verifyConfirmToken],
    ] as const) {
      for (let at = 0; at < token.length; at++) {
        if (token[at] === ".") continue;
        for (const replacement of alphabet) {
          if (replacement === token[at]) continue;
          expect(verify(`${token.slice(0, at)}${replacement}${token.slice(at + 1)}`, secret)).toBeUndefined();
        }
      }
      expect(verify(token, `${secret}!`)).toBeUndefined();
    }
    // A confirm token's signup time is signed too.
    const [email, , sig] = legacyConfirmToken("ada@example.com", createdAt, secret).split(".");
    const other = Buffer.from("2026-11-23T10:15:31.123Z").toString("base64url");
    expect(verifyConfirmToken(`${email}.${other}.${sig}`, secret)).toBeUndefined();
  });
});

describe("WAITLIST_SECRET", () => {
  it("is optional: without it the store makes one", () => {
    expect(waitlistConfig(readEnv({})).linkSecret).toBeUndefined();
    expect(waitlistConfig(readEnv({ WAITLIST_SECRET: "  " })).linkSecret).toBeUndefined();
    expect(waitlistConfig(readEnv({ WAITLIST_SECRET: secret })).linkSecret).toBe(secret);
  });

  it("refuses a value too short to be a secret, saying how to make one", () => {
    expect(() => waitlistConfig(readEnv({ WAITLIST_SECRET: "hunter2" }))).toThrow(ConfigError);
    expect(() => waitlistConfig(readEnv({ WAITLIST_SECRET: "hunter2" }))).toThrow(
      /^WAITLIST_SECRET must be at least 32 characters \(got 7 characters\); make one with: node -e /,
    );
  });
});
