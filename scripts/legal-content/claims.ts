/*
 * The claims of config/site.ts that name a date ("launch: Q4 2025"), held against today: a claim whose date is past
 * is the client's to change (the specification fixes it), so the check warns, naming it and where it is shown, and
 * never fails on it or changes it.
 */

const months = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
];

/** Where each dated claim is shown, as a warning names it. */
const shownIn: Readonly<Record<string, string>> = {
  launch: "the landing page, the Privacy Policy (<LaunchDate />) and the confirmation e-mail",
};

/** The last day of a month (1 to 12) of `year`, YYYY-MM-DD. */
const lastDay = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).toISOString().slice(0, 10);

/**
 * The last day a claimed date names, YYYY-MM-DD: "Q4 2025" ends on 2025-12-31, "H1 2026" on 2026-06-30, "March
 * 2026" on 2026-03-31, "2026" on 2026-12-31, "2026-03-01" on that day. Undefined when the claim names no date
 * ("500+", "Free").
 */
export function claimEnds(claim: string): string | undefined {
  const text = claim.trim().toLowerCase();
  let match = /^(?:q([1-4])|h([12]))\s+(\d{4})$/.exec(text);
  if (match) {
    const [, quarter, half, year] = match;
    return lastDay(Number(year), quarter ? Number(quarter) * 3 : Number(half) * 6);
  }
  match = /^([a-z]+)\s+(\d{4})$/.exec(text);
  if (match && months.includes(match[1]!)) return lastDay(Number(match[2]), months.indexOf(match[1]!) + 1);
  if (/^\d{4}$/.test(text)) return `${text}-12-31`;
  match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (match) {
    const day = new Date(`${text}T00:00:00Z`);
    return !Number.isNaN(day.getTime()) && day.toISOString().startsWith(text) ? text : undefined;
  }
  return undefined;
}

/**
 * A warning for each claim (config/site.ts's `claims`) whose date is past `today` (YYYY-MM-DD), naming the claim, its
 * line in `source` (config/site.ts's text) where found, and what to do.
 */
export function pastClaimWarnings(
  claims: Readonly<Record<string, string>>,
  today: string = new Date().toISOString().slice(0, 10),
  source?: string,
): string[] {
  return Object.entries(claims).flatMap(([name, claim]) => {
    const ends = claimEnds(claim);
    if (ends === undefined || ends >= today) return [];
    const index = (source ?? "").split("\n").findIndex((line) => new RegExp(`^\\s*${name}:\\s*["'\`]`).test(line));
    const at = index < 0 ? "" : ` (line ${index + 1})`;
    const shown = shownIn[name] ?? "the site";
    return [
      `config/site.ts: claims.${name}${at} is "${claim}", which ended on ${ends}, before today (${today}), and ${shown} still show it as to come. It is the client's figure, fixed by the specification, so this check does not fail on it or change it: ask the client for the new one, and write it there.`,
    ];
  });
}
