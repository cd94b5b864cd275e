import { domainToASCII } from "node:url";
import addressparser from "nodemailer/lib/addressparser";
import unicodeProperties from "regenerate-unicode-properties";
import { checkEmail, checkListedEmail } from "./email-address";

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

/*
 * Look-alikes (issue 43): an address that reads as another is refused, and
 * whatever was accepted before in one script still is.
 */
const codePoints = function* (last = 0x10ffff) {
  for (let code = 0; code <= last; code++) if (code < 0xd800 || code > 0xdfff) yield String.fromCodePoint(code);
};
const at = (email: string) => email.lastIndexOf("@");
const nfkcStable = (email: string) => email === email.normalize("NFKC");

describe("compatibility characters (those Unicode's NFKC form changes)", () => {
  const changed = [...codePoints()].filter((char) => char.normalize("NFKC") !== char);

  it("are refused or made plain wherever they stand (4,900 or more of them), never kept", () => {
    expect(changed.length).toBeGreaterThanOrEqual(4_900);
    const kept = changed.flatMap((char) =>
      placed(char).flatMap((typed) => {
        const checked = checkEmail(typed);
        return checked.ok && !nfkcStable(checked.email) ? [`${hex(char)} in ${JSON.stringify(typed)}`] : [];
      }),
    );
    expect(kept).toEqual([]);
  });

  it("are refused before the @, where a mail server keeps them: the 598 that NFKC makes ASCII among them", () => {
    // Those NFC leaves alone: NFC's own changes (Å for the Ångström sign) are one address, made canonical.
    const compatibility = changed.filter((char) => char.normalize("NFC") === char);
    const toAscii = compatibility.filter((char) => /^[\x20-\x7e]+$/.test(char.normalize("NFKC")));
    expect(toAscii.length).toBeGreaterThanOrEqual(598);
    const accepted = compatibility.flatMap((char) =>
      [`x${char}victim@example.com`, `vic${char}tim@example.com`]
        .filter((typed) => checkEmail(typed).ok)
        .map((typed) => `${hex(char)} in ${JSON.stringify(typed)}`),
    );
    expect(accepted).toEqual([]);
  });

  it.each([
    ["a long s", "\u017Ftefan@example.com"],
    ["a superscript two", "x\u00B2@example.com"],
    ["the ligature ij", "\u0133sbrand@example.com"],
    ["a fullwidth letter", "\uFF41da@example.com"],
    ["a black-letter capital", "\u210Cans@example.com"],
    ["a circled letter", "\u24D0da@example.com"],
    ["the micro sign", "\u00B5ser@example.com"],
  ])("refuses %s before the @, saying why in the visitor's words", (_name, typed) => {
    expect(checkEmail(typed)).toEqual({
      ok: false,
      reason:
        "The e-mail address contains a special form of a character (such as \u00B2, \uFB01 or a full-width letter) that passes for another; type it with ordinary letters and digits.",
    });
  });

  it("makes a domain's compatibility characters plain, as browsers do (UTS #46), rather than refuse them", () => {
    expect(checkEmail("victim@\u017Fite.example")).toEqual({
      ok: true,
      email: "victim@site.example",
      key: "victim@site.example",
    });
  });
});

describe("letters of two scripts in one label (UTS #39, Highly Restrictive)", () => {
  // Every script this Node's regular expressions know, by the names regenerate-unicode-properties gives.
  const known = (unicodeProperties.get("Script") ?? []).filter((name) => {
    if (name === "Common" || name === "Inherited") return false;
    try {
      new RegExp(`\\p{sc=${name}}`, "u");
      return true;
    } catch {
      // A script of a Unicode newer than this Node's: none of its characters is assigned here.
      return false;
    }
  });
  const scxOf = Object.fromEntries(known.map((name) => [name, new RegExp(`^\\p{scx=${name}}$`, "u")]));
  const letters = [...codePoints()].filter((char) => /\p{L}/u.test(char) && nfkcStable(char)).join("");
  /** One letter of each script that is of no other, and that an address could hold twice where `place` puts it. */
  const samples = (place: (letter: string) => string) =>
    Object.fromEntries(
      known.flatMap((name) => {
        for (const [letter] of letters.matchAll(new RegExp(`\\p{sc=${name}}`, "gu"))) {
          const alone = known.every((other) => other === name || !scxOf[other]!.test(letter));
          if (alone && checkListedEmail(place(`${letter}${letter}`)).ok) return [[name, letter]];
        }
        return [];
      }),
    ) as Record<string, string>;
  const allowedTogether = [
    ["Latin", "Han", "Hiragana", "Katakana"],
    ["Latin", "Han", "Bopomofo"],
    ["Latin", "Han", "Hangul"],
  ];
  const allowed = (a: string, b: string) =>
    a === b || allowedTogether.some((set) => set.includes(a) && set.includes(b));

  it.each([
    ["before the @", (label: string) => `${label}@example.com`],
    ["in the domain", (label: string) => `ada@${label}.example`],
  ])("are refused %s for every pair of scripts but Latin with Han, kana, Bopomofo or Hangul", (_where, place) => {
    const sample = samples(place);
    // Scripts outside the BMP are no address before the @ (validator.js), and some none in a domain (IDNA).
    expect(Object.keys(sample).length).toBeGreaterThanOrEqual(60);
    expect(Object.keys(sample)).toEqual(expect.arrayContaining(["Latin", "Cyrillic", "Greek", "Han", "Hangul"]));
    const wrong: string[] = [];
    for (const [a, first] of Object.entries(sample)) {
      for (const [b, second] of Object.entries(sample)) {
        const typed = place(`${first}${second}`);
        if (!checkListedEmail(typed).ok) continue;
        const checked = checkEmail(typed);
        const right = allowed(a, b)
          ? checked.ok
          : !checked.ok && checked.reason.startsWith("The e-mail address mixes letters from different alphabets");
        if (!right) wrong.push(`${a} + ${b}: ${JSON.stringify(typed)} -> ${JSON.stringify(checked)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it.each([
    ["a Cyrillic і among Latin letters", "vict\u0456m@example.com", "Latin and Cyrillic", "before the @"],
    ["a Cyrillic а in a Latin domain", "a@p\u0430ypal.com", "Latin and Cyrillic", "in its domain"],
    ["a Greek ο among Latin letters", "g\u03BFogle@example.com", "Latin and Greek", "before the @"],
    ["an Armenian օ among Latin letters", "g\u0585\u0585gle@example.com", "Latin and Armenian", "before the @"],
    [
      "a Cyrillic tag on a Latin mailbox",
      "ada+\u0442\u0435\u0441\u0442@gmail.com",
      "Latin and Cyrillic",
      "before the @",
    ],
    ["Hiragana with Hangul", "\u3072\uD55C@example.com", "Hiragana and Hangul", "before the @"],
  ])("refuses %s, naming both alphabets", (_name, typed, scripts, where) => {
    expect(checkEmail(typed)).toEqual({
      ok: false,
      reason: `The e-mail address mixes letters from different alphabets (${scripts}) ${where}: a letter may only look like the one you meant. Type it in one alphabet.`,
    });
  });

  it.each([
    "jos\u00e9@ex\u00e4mple.com",
    "\u7528\u6237@\u4f8b\u5b50.\u5e7f\u544a",
    "\u043f\u043e\u0447\u0442\u0430@\u043f\u0440\u0438\u043c\u0435\u0440.\u0440\u0444",
    "\u0395\u03BB\u03BB\u03B7\u03BD\u03B9\u03BA\u03AC@\u03C0\u03B1\u03C1\u03AC\u03B4\u03B5\u03B9\u03B3\u03BC\u03B1.\u03B5\u03BB",
    // Japanese: Han, Hiragana and Katakana, and Latin beside them.
    "\u5C71\u7530\u305F\u308D\u3046@example.jp",
    "taro.\u30BF\u30ED\u30A6@\u4F8B\u3048.jp",
    // Korean: Hangul and Han; Chinese with Bopomofo.
    "\uD64D\uAE38\uB3D9@example.kr",
    "\u6F22\u5B57\uD55C\uAE00@example.com",
    "\u6C49\u5B57\u3105@example.tw",
    // Script-neutral marks and signs count for every script: Cyrillic with a combining acute, digits, a hyphen.
    "\u0438\u0301\u0432\u0430\u043D-2@\u043F\u0440\u0438\u043C\u0435\u0440.\u0440\u0444",
    "\u0627\u062D\u0645\u062F.1@example.com",
    "o'brien+news@example.com",
  ])("keeps accepting %s, one script per label", (typed) => {
    expect(checkEmail(typed)).toEqual(checkListedEmail(typed));
    expect(checkEmail(typed).ok).toBe(true);
  });

  it("keeps accepting every address of one character, twice, that it accepted before, but for compatibility characters", () => {
    const changed: string[] = [];
    for (const char of codePoints(0x2ffff)) {
      for (const typed of [`${char}${char}@example.com`, `ada@${char}${char}.example`]) {
        const before = checkListedEmail(typed);
        // A domain's character that IDNA maps to others (㎂ to μa) is one no more: those are the test above's.
        if (!before.ok || before.email !== typed.normalize("NFC")) continue;
        const now = checkEmail(typed);
        if (now.ok !== nfkcStable(before.email) || (now.ok && now.email !== before.email)) {
          changed.push(`${hex(char)} in ${JSON.stringify(typed)}: ${JSON.stringify(now)}`);
        }
      }
    }
    expect(changed).toEqual([]);
  });
});

describe("digits of two number systems in one label (UTS #39, 5.3)", () => {
  const digits = [...codePoints()].filter((char) => /\p{Nd}/u.test(char) && nfkcStable(char));

  it("refuses every decimal digit beside an ASCII one, and accepts each system alone", () => {
    expect(digits.length).toBeGreaterThanOrEqual(600);
    const wrong: string[] = [];
    for (const digit of digits) {
      const mixed = `1${digit}@example.com`;
      if (checkListedEmail(mixed).ok && checkEmail(mixed).ok !== /[0-9]/.test(digit)) wrong.push(`${hex(digit)} mixed`);
      const alone = `${digit}${digit}@example.com`;
      if (checkListedEmail(alone).ok && !checkEmail(alone).ok) wrong.push(`${hex(digit)} alone`);
    }
    expect(wrong).toEqual([]);
  });

  it.each([
    ["a Bengali four, which reads as an 8, among ASCII digits", "12\u09EA@example.com"],
    ["Arabic-Indic and Eastern Arabic-Indic digits, whose fours look alike", "\u0661\u0662\u06F4@example.com"],
  ])("refuses %s", (_name, typed) => {
    expect(checkEmail(typed)).toEqual({
      ok: false,
      reason:
        "The e-mail address mixes digits of different number systems before the @; type its digits in one system.",
    });
  });
});

describe("an address already listed, which a link, a removal or an unsubscribe names", () => {
  it.each(["vict\u0456m@example.com", "\u017Ftefan@example.com", "a@p\u0430ypal.com", "12\u09EA@example.com"])(
    "keeps %s's canonical form and key, which checkEmail now refuses",
    (typed) => {
      expect(checkEmail(typed).ok).toBe(false);
      expect(checkListedEmail(typed)).toEqual({
        ok: true,
        email: typed,
        key: `${typed.slice(0, at(typed))}@${domainToASCII(typed.slice(at(typed) + 1))}`.toLowerCase(),
      });
    },
  );
});
