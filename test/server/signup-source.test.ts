import { noAttribution } from "../../waitlist/attribution";
import { formType, request, signupBody, serverForEachTest, type Adapter, type TestServer } from "../support/harness";

interface Exported {
  email: string;
  utmSource: string | null;
  utmMedium: string | null;
  utmCampaign: string | null;
  utmContent: string | null;
  utmTerm: string | null;
  ref: string | null;
  landingPath: string | null;
}

const exported = async (server: TestServer): Promise<Exported[]> => server.signups();

describe.each<Adapter>(["start", "develop", "netlify"])(
  "where a signup came from, through the %s adapter",
  (adapter) => {
    const server = serverForEachTest(adapter);

    const signUp = (email: string, headers: Record<string, string>, body = signupBody(email)) =>
      request(`${server().url}/`, { method: "POST", headers: { ...formType, Accept: "text/plain", ...headers }, body });

    it("keeps every campaign parameter, the referral tag and the landing path from this site's Referer", async () => {
      const referer =
        "https://jointandem.app/?utm_source=tiktok&utm_medium=social&utm_campaign=launch&utm_content=bio&utm_term=duets&ref=maya&gclid=ignored";
      expect((await signUp("ada@example.com", { Referer: referer })).status).toBe(200);
      // The listening address is this site too (a preview, npm start on a laptop).
      expect((await signUp("grace@example.com", { Referer: `${server().url}/?utm_source=dm` })).status).toBe(200);
      expect(await exported(server())).toEqual([
        expect.objectContaining({
          email: "ada@example.com",
          utmSource: "tiktok",
          utmMedium: "social",
          utmCampaign: "launch",
          utmContent: "bio",
          utmTerm: "duets",
          ref: "maya",
          landingPath: "/",
        }),
        expect.objectContaining({ email: "grace@example.com", utmSource: "dm", landingPath: "/" }),
      ]);
    });

    it.each([
      ["another site's", { Referer: "https://evil.test/?utm_source=tiktok" }],
      ["no", {}],
      ["an oversized", { Referer: `https://jointandem.app/?utm_source=tiktok&pad=${"x".repeat(5000)}` }],
      ["a control character in a", { Referer: "https://jointandem.app/?utm_source=tik%07tok" }],
      ["a garbage", { Referer: "::::" }],
    ])("stores nothing from %s Referer, and the signup still succeeds", async (_name, headers) => {
      const reply = await signUp("ada@example.com", headers);
      expect([reply.status, reply.body]).toEqual([
        200,
        "Welcome to the waitlist! Check your email for a confirmation message.\n",
      ]);
      expect(await exported(server())).toEqual([
        expect.objectContaining({ email: "ada@example.com", ...noAttribution }),
      ]);
    });

    it("keeps the body's contract: campaign fields in the form are neither needed nor read", async () => {
      const body = signupBody("ada@example.com", { utm_source: "forged", ref: "forged" });
      expect((await signUp("ada@example.com", {}, body)).status).toBe(200);
      expect(await exported(server())).toEqual([
        expect.objectContaining({ email: "ada@example.com", ...noAttribution }),
      ]);
    });

    it("keeps the first attribution of an address; a repeat does not overwrite it", async () => {
      await signUp("ada@example.com", { Referer: "https://jointandem.app/?utm_source=tiktok" });
      await signUp("ada@example.com", { Referer: "https://jointandem.app/?utm_source=instagram" });
      expect((await exported(server())).map((row) => row.utmSource)).toEqual(["tiktok"]);
    });
  },
);
