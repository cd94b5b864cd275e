import { checkEmail } from "../../config/email-address";
import { mailboxCounterKey, mailboxOf } from "./mailbox";

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

  it("counts by a digest of the mailbox, the same for every spelling of it, that holds no address", () => {
    const counters = ["anna@gmail.com", "a.nna+a@gmail.com", "ANNA+b@googlemail.com"].map((one) =>
      mailboxCounterKey(key(one)),
    );
    expect(new Set(counters).size).toBe(1);
    expect(counters[0]).toMatch(/^[0-9a-f]{32}$/);
    expect(mailboxCounterKey(key("anne@gmail.com"))).not.toBe(counters[0]);
  });
});
