// Requests that race: many signups of one address at the same moment, and many one-click leaves of addresses stored
// side by side.
import { leaveLinks } from "../../test/support/smtp";
import { type Deployment, progress } from "./deployment";

export const concurrent = 20;

export async function races(bench: Deployment) {
  const { store, smtp, invoke, signup, leave, post, nextIp } = bench;
  progress("concurrent signups of one address, and concurrent leaves");
  // 20 signups of one address at the same moment, each from its own IP: stored once, mailed once?
  const same = "same.address@example.com";
  const sameReplies = await Promise.all(Array.from({ length: concurrent }, () => invoke(signup, post(same), nextIp())));
  const concurrentSignups = {
    signups: concurrent,
    answered200: sameReplies.filter((reply) => reply !== "killed" && reply.status === 200).length,
    stored: (await store.all()).filter((row) => row.email === same).length,
    mailed: smtp.deliveries.filter((delivery) => delivery.envelope.to.includes(same)).length,
  };

  // 20 one-click leaves at the same moment, of 20 addresses stored side by side.
  const leavers = Array.from({ length: concurrent }, (_, i) => `leaver${i}@example.com`);
  for (const email of leavers) await invoke(signup, post(email), nextIp());
  const leaveReplies = await Promise.all(
    leavers.map((email) => {
      const delivery = smtp.deliveries.find((candidate) => candidate.envelope.to.includes(email))!;
      const link = leaveLinks(delivery.mail).text;
      return invoke(
        leave,
        new Request(link, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: "List-Unsubscribe=One-Click",
        }),
        nextIp(),
      );
    }),
  );
  const stillListed = new Set((await store.all()).map((row) => row.email));
  const concurrentLeaves = {
    leaves: concurrent,
    errors: leaveReplies.filter((reply) => reply === "killed" || reply.status !== 200).length,
    stillListed: leavers.filter((email) => stillListed.has(email)).length,
  };
  return { concurrentSignups, concurrentLeaves };
}
