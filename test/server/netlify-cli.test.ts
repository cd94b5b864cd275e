import { parse } from "csv-parse/sync";
import { run } from "../../waitlist/cli";
import { NetlifySetupError } from "../../server/netlify-forms";
import type { WaitlistStats } from "../../waitlist/stats";
import { netlifySite, startNetlifyApi, type NetlifyApiStandIn, type StandInSubmission } from "./netlify-api";

const { siteId, token, formId } = netlifySite;

let api: NetlifyApiStandIn;
let env: NodeJS.ProcessEnv;
beforeEach(async () => {
  api = await startNetlifyApi({ siteId, token });
  api.forms.push({ id: "contact-form", name: "contact" }, { id: formId, name: "waitlist" });
  env = { NETLIFY_API_TOKEN: token, NETLIFY_SITE_ID: siteId, NETLIFY_API_URL: api.url };
});
afterEach(() => api.close());

const submission = (id: string, email: string, createdAt: string, referrer?: string): StandInSubmission => ({
  id,
  form_id: formId,
  created_at: createdAt,
  site_url: "https://jointandem.netlify.app",
  data: { "form-name": "waitlist", email, "bot-field": "", ...(referrer === undefined ? {} : { referrer }) },
});

/** Netlify lists newest first: 120 signups from a TikTok link, then the ones each test looks at. */
function seed() {
  for (let n = 119; n >= 0; n--) {
    const at = new Date(Date.parse("2026-11-20T00:00:00Z") + n * 60_000).toISOString();
    api.submissions.push(
      submission(
        `bulk-${n}`,
        `fan${n}@example.com`,
        at,
        "https://jointandem.app/?utm_source=tiktok&utm_campaign=launch",
      ),
    );
  }
  api.submissions.push(
    // A repeat of Ada's, later and spelled otherwise: one row, the first submission's.
    submission("ada-2", "ADA@example.com", "2026-11-19T12:00:00.000Z", "https://jointandem.app/?utm_source=instagram"),
    submission("ada-1", "ada@example.com", "2026-11-19T10:00:00.000Z", "https://jointandem.netlify.app/?ref=maya"),
    submission("grace", "grace@example.com", "2026-11-19T09:00:00.000Z", "https://evil.test/?utm_source=forged"),
    submission("bad", "not-an-address", "2026-11-19T08:00:00.000Z"),
    { ...submission("other-form", "someone@example.com", "2026-11-19T07:00:00.000Z"), form_id: "contact-form" },
  );
}

const authorization = `Bearer ${token}`;
const listCalls = [
  { method: "GET", url: `/api/v1/sites/${siteId}/forms`, authorization },
  { method: "GET", url: `/api/v1/forms/${formId}/submissions?page=1&per_page=100`, authorization },
  { method: "GET", url: `/api/v1/forms/${formId}/submissions?page=2&per_page=100`, authorization },
];

describe("npm run waitlist -- export --netlify", () => {
  it("reads every page of the waitlist form through @netlify/api, one row per address, with its attribution", async () => {
    seed();
    const rows = parse(await run(["export", "--format", "csv", "--netlify"], env), { columns: true }) as Record<
      string,
      string
    >[];
    expect(api.calls).toEqual(listCalls);
    expect(rows).toHaveLength(122);
    expect(rows.slice(0, 2)).toEqual([
      expect.objectContaining({ email: "grace@example.com", source: "netlify", utm_source: "", landing_path: "" }),
      expect.objectContaining({
        email: "ada@example.com",
        created_at: "2026-11-19T10:00:00.000Z",
        ref: "maya",
        utm_source: "",
        landing_path: "/",
        confirmation_sent_at: "",
      }),
    ]);
    expect(rows[2]).toMatchObject({ email: "fan0@example.com", utm_source: "tiktok", utm_campaign: "launch" });
    const json = JSON.parse(await run(["export", "--format", "json", "--netlify"], env)) as { email: string }[];
    expect(json.map((row) => row.email)).toEqual(rows.map((row) => row.email));
  });
});

describe("npm run waitlist -- stats --netlify", () => {
  it("gives the same figures from Netlify Forms, without the ones only the store knows", async () => {
    seed();
    const stats = JSON.parse(await run(["stats", "--json", "--netlify", "--days", "366"], env)) as WaitlistStats;
    expect(api.calls).toEqual(listCalls);
    expect(stats.total).toBe(122);
    expect(stats.sources.slice(0, 2)).toEqual([
      { name: "tiktok", signups: 120, percent: 98.4 },
      { name: "(none)", signups: 2, percent: 1.6 },
    ]);
    expect(stats.referralTags).toContainEqual({ name: "maya", signups: 1, percent: 0.8 });
    expect([stats.confirmations, stats.left]).toEqual([null, null]);
    const text = await run(["stats", "--netlify"], env);
    expect(text).toMatch(new RegExp(`^Waitlist \\(Netlify Forms, site ${siteId}\\): 122 signups`));
    expect(text).not.toContain("Confirmations:");
  });

  it.each([
    ["NETLIFY_API_TOKEN", "NETLIFY_API_TOKEN is not set"],
    ["NETLIFY_SITE_ID", "SITE_ID (or NETLIFY_SITE_ID) is not set"],
  ])("without %s, says so in one line and asks nobody", async (variable, problem) => {
    delete env[variable];
    await expect(run(["stats", "--netlify"], env)).rejects.toThrow(new NetlifySetupError(problem));
    await expect(run(["export", "--format", "csv", "--netlify"], env)).rejects.toThrow(NetlifySetupError);
    expect(api.calls).toEqual([]);
  });

  it("says when the site has no waitlist form yet", async () => {
    api.forms.splice(0);
    await expect(run(["stats", "--netlify"], env)).rejects.toThrow(
      `The site ${siteId} has no "waitlist" form yet: turn on form detection and deploy (README, "Deploying to Netlify")`,
    );
  });
});
