import { mailErrorReason, redactAddresses } from "./redact";

/*
 * The mail server's words as logged and kept: no address in them whole, however the server writes it (issue 52).
 * The replies are the real servers' own, with the recipient put in.
 */

/** Every spelling of the recipient a reply below may hold, decoded: none may be left in what is logged or kept. */
function expectNoTraceOf(text: string, ...forms: string[]) {
  const lower = text.toLowerCase();
  const decodedText = (() => {
    try {
      return decodeURIComponent(text).toLowerCase();
    } catch {
      return lower;
    }
  })();
  for (const form of forms) {
    expect(lower).not.toContain(form.toLowerCase());
    expect(decodedText).not.toContain(form.toLowerCase());
  }
}

describe("redactAddresses", () => {
  it.each([
    [
      "Postfix, bracketed",
      "bob@example.com",
      "550 5.1.1 <bob@example.com>: Recipient address rejected: User unknown in virtual mailbox table",
      "550 5.1.1 <b***@example.com>: Recipient address rejected: User unknown in virtual mailbox table",
    ],
    [
      "Amazon SES, unbracketed",
      "bob@example.com",
      "554 Message rejected: Email address is not verified. The following identities failed the check in region US-EAST-1: bob@example.com",
      "554 Message rejected: Email address is not verified. The following identities failed the check in region US-EAST-1: b***@example.com",
    ],
    [
      "upper case",
      "bob@example.com",
      "550 5.1.1 <BOB@EXAMPLE.COM>... User unknown",
      "550 5.1.1 <b***@example.com>... User unknown",
    ],
    [
      "the part before the @ alone",
      "bob@example.com",
      "550 5.1.1 User BOB unknown; mailbox bob is full",
      "550 5.1.1 User *** unknown; mailbox *** is full",
    ],
    ["percent-encoded", "bøb@example.com", "550 rejected: b%C3%B8b%40example.com", "550 rejected: b***@example.com"],
    [
      "quoted-printable",
      "bøb@example.com",
      "550 <b=C3=B8b=40example.com> unknown; local part b=C3=B8b",
      "550 <b***@example.com> unknown; local part ***",
    ],
    [
      "an IDN domain in punycode",
      "anna@straße.de",
      "550 5.1.1 <anna@xn--strae-oqa.de>: Recipient address rejected",
      "550 5.1.1 <a***@straße.de>: Recipient address rejected",
    ],
    [
      "a Unicode local part, upper case",
      "änna@example.com",
      "550 5.1.1 <ÄNNA@EXAMPLE.COM>: mailbox ÄNNA unknown",
      "550 5.1.1 <ä***@example.com>: mailbox *** unknown",
    ],
    [
      "a quoted local part",
      "bob@example.com",
      '550 5.1.1 <"bob smith"@example.com>: Recipient address rejected',
      '550 5.1.1 <"***@example.com>: Recipient address rejected',
    ],
  ])("shortens the recipient's address: %s", (_name, recipient, reply, logged) => {
    const redacted = redactAddresses(reply, recipient);
    expect(redacted).toBe(logged);
    const at = recipient.lastIndexOf("@");
    expectNoTraceOf(redacted, recipient, recipient.slice(0, at), "bob smith");
  });

  it("shortens every other address too, with or without the recipient, and a second pass changes nothing", () => {
    const reply = "550 5.7.1 <carol@example.org>: forwarding to dave.d@example.net refused (also d%2Bx%40example.net)";
    const once = redactAddresses(reply);
    expect(once).toBe("550 5.7.1 <c***@example.org>: forwarding to d***@example.net refused (also d***@example.net)");
    expect(redactAddresses(once)).toBe(once);
    expect(redactAddresses(reply, "bob@example.com")).toBe(once);
  });

  it("leaves a reply that names nobody as it is", () => {
    const reply = "421 4.7.0 Try again later, closing connection. (EHLO) 5.1.1 rate=40/min, 100%40 quota";
    expect(redactAddresses(reply, "bob@example.com")).toBe(reply);
  });
});

describe("mailErrorReason", () => {
  it("keeps the first line of the error, shortened", () => {
    const error = Object.assign(
      new Error("Can't send mail - all recipients were rejected: 550 5.1.1 <Bob@Example.com>: User unknown\nmore"),
      { responseCode: 550 },
    );
    expect(mailErrorReason(error, "Bob@example.com")).toBe(
      "Can't send mail - all recipients were rejected: 550 5.1.1 <B***@example.com>: User unknown",
    );
    expect(mailErrorReason(new Error(""), "bob@example.com")).toBe("unknown error");
  });
});
