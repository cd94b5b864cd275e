import { domainToASCII } from "node:url";
import addressparser from "nodemailer/lib/addressparser";
import { checkEmail } from "./email-address";

/*
 * One address, one mailbox, one record: whole Unicode classes, not one
 * sample each. An address is either refused, or has one canonical form that
 * nodemailer reads back as exactly that address, and that checks to itself.
 */

/** Every code point with `property`, as strings. */
function everyCodePoint(property: RegExp): string[] {
  const found: string[] = [];
  for (let code = 0; code <= 0x10ffff; code++) {
    if (code >= 0xd800 && code <= 0xdfff) continue;
    const char = String.fromCodePoint(code);
    if (property.test(char)) found.push(char);
  }
  return found;
}
const hex = (char: string) => `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;

/** The places a character can hide: before the local part, inside it, inside the domain. */
const placed = (char: string) => [
  `x${char}victim@example.com`,
  `vic${char}tim@example.com`,
  `victim@exam${char}ple.com`,
];

describe.each([
  ["space separator (Zs)", /\p{Zs}/u, 17],
  ["white space of any kind", /\p{White_Space}/u, 25],
  ["default-ignorable code point", /\p{Default_Ignorable_Code_Point}/u, 4000],
  ["format character (Cf)", /\p{Cf}/u, 160],
  ["control character (Cc)", /\p{Cc}/u, 65],
  ["private-use code point (Co)", /\p{Co}/u, 137_000],
])("every %s", (_name, property, atLeast) => {
  const chars = everyCodePoint(property);

  it(`is refused wherever it stands in an address (${atLeast} or more of them)`, () => {
    expect(chars.length).toBeGreaterThanOrEqual(atLeast);
    const accepted = chars.flatMap((char) =>
      placed(char)
        .filter((email) => checkEmail(email).ok)
        .map((email) => `${hex(char)} in ${JSON.stringify(email)}`),
    );
    expect(accepted).toEqual([]);
  });
});

describe("the canonical form", () => {
  it.each([
    ["the ideographic full stop", "victim@example\u3002com"],
    ["the fullwidth full stop", "victim@example\uFF0Ecom"],
    ["the halfwidth ideographic full stop", "victim@example\uFF61com"],
    ["a fullwidth letter", "victim@\uFF45xample.com"],
    ["a whole fullwidth domain", "victim@\uFF45\uFF58\uFF41\uFF4D\uFF50\uFF4C\uFF45.\uFF43\uFF4F\uFF4D"],
    ["capitals", "victim@EXAMPLE.COM"],
  ])("maps %s in the domain to one spelling, the one stored and mailed", (_name, typed) => {
    expect(checkEmail(typed)).toEqual({ ok: true, email: "victim@example.com", key: "victim@example.com" });
  });

  it.each([
    ["capital sharp s (U+1E9E)", "anna@STRA\u1E9EE.de", "anna@stra\u00DFe.de", "anna@xn--strae-oqa.de"],
    ["small sharp s", "anna@stra\u00DFe.de", "anna@stra\u00DFe.de", "anna@xn--strae-oqa.de"],
    [
      "a capital dotted I (U+0130)",
      "ada@\u0130stanbul.example",
      "ada@i\u0307stanbul.example",
      "ada@xn--istanbul-o0e.example",
    ],
    ["an umlaut", "ADA@B\u00DCCHER.de", "ADA@b\u00FCcher.de", "ada@xn--bcher-kva.de"],
    ["its ASCII form", "ada@xn--bcher-kva.de", "ada@b\u00FCcher.de", "ada@xn--bcher-kva.de"],
  ])("keys and mails a domain with %s as one domain", (_name, typed, email, key) => {
    expect(checkEmail(typed)).toEqual({ ok: true, email, key });
    // The key's domain is what the mail server is given for the address mailed.
    expect(
      `${email.slice(0, email.lastIndexOf("@"))}@${domainToASCII(email.slice(email.lastIndexOf("@") + 1))}`.toLowerCase(),
    ).toBe(key);
  });

  it("is a fixed point, and nodemailer reads it back as exactly that address, for every letter, mark and symbol", () => {
    const misread: string[] = [];
    for (let code = 0x21; code <= 0x2ffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const char = String.fromCodePoint(code);
      for (const typed of placed(char)) {
        const checked = checkEmail(typed);
        if (!checked.ok) continue;
        const again = checkEmail(checked.email);
        const parsed = addressparser(checked.email);
        const [local, domain] = [
          checked.email.slice(0, checked.email.lastIndexOf("@")),
          checked.email.split("@").pop()!,
        ];
        if (
          !again.ok ||
          again.email !== checked.email ||
          again.key !== checked.key ||
          parsed.length !== 1 ||
          parsed[0]!.address !== checked.email ||
          parsed[0]!.name !== "" ||
          checked.key !== `${local}@${domainToASCII(domain)}`.toLowerCase()
        ) {
          misread.push(`${hex(char)}: ${JSON.stringify(typed)} -> ${JSON.stringify(checked)}`);
        }
      }
    }
    expect(misread).toEqual([]);
  });
});
