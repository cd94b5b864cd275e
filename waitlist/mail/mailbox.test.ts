import { createHash } from "node:crypto";
import { checkEmail } from "../email-address";
import { mailboxCounters, mailboxOf } from "./mailbox";

const key = (address: string) => {
  const checked = checkEmail(address);
  if (!checked.ok) throw new Error(checked.reason);
  return checked.key;
};

describe("mailboxOf", () => {
  it.each([
    ["anna@gmail.com", "anna@gmail.com"],
    ["ANNA@Gmail.com", "anna@gmail.com"],
    ["a.n.n.a@gmail.com", "anna@gmail.com"],
    ["anna+tiktok@gmail.com", "anna@gmail.com"],
    ["A.nna+1+2@googlemail.com", "anna@gmail.com"],
    ["anna+x@example.com", "anna@example.com"],
    ["Anna@EXAMPLE.com", "anna@example.com"],
    ["anna.maria@example.com", "anna.maria@example.com"],
    ["anna@straße.de", "anna@xn--strae-oqa.de"],
    ["ÄNNA+x@example.com", "änna@example.com"],
    ["ΑΝΝΑ+1@example.gr", "αννα@example.gr"],
    // Only Gmail's own domains drop dots: not a subdomain, nor a domain that merely ends like one.
    ["a.nna@mail.gmail.com", "a.nna@mail.gmail.com"],
    ["a.nna@notgmail.com", "a.nna@notgmail.com"],
  ])("files %s under %s", (address, mailbox) => {
    expect(mailboxOf(key(address))).toBe(mailbox);
  });

  it("keeps what a provider could read as two people apart: dots elsewhere, a leading + and a local part of dots", () => {
    expect(mailboxOf(key("anna.maria@example.com"))).not.toBe(mailboxOf(key("annamaria@example.com")));
    expect(mailboxOf(key("+anna@example.com"))).toBe("+anna@example.com");
    expect(mailboxOf("...@gmail.com")).toBe("...@gmail.com");
  });

  const secret = "a-test-secret-of-thirty-two-characters!";
  it("counts every spelling of a mailbox by one keyed digest that holds no address, and its own address apart too", () => {
    const spellings = ["a.nna+a@gmail.com", "ANNA+b@googlemail.com", "an.na@gmail.com"].map((one) =>
      mailboxCounters(key(one), secret),
    );
    expect(new Set(spellings.map((one) => JSON.stringify(one))).size).toBe(1);
    expect(spellings[0]).toEqual({ mailbox: expect.stringMatching(/^[0-9a-f]{32}$/) });
    const own = mailboxCounters(key("anna@gmail.com"), secret);
    expect(own).toEqual({ mailbox: spellings[0]!.mailbox, own: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(own.own).not.toBe(own.mailbox);
    expect(mailboxCounters(key("anne+x@gmail.com"), secret).mailbox).not.toBe(spellings[0]!.mailbox);
  });

  it("is keyed: a list of addresses hashed without the site's secret finds nobody (issue 43)", () => {
    const { mailbox } = mailboxCounters(key("anna+a@gmail.com"), secret);
    const plain = createHash("sha256").update("anna@gmail.com", "utf8").digest("hex");
    expect(plain.startsWith(mailbox)).toBe(false);
    expect(mailboxCounters(key("anna+a@gmail.com"), `${secret}2`).mailbox).not.toBe(mailbox);
  });
});
