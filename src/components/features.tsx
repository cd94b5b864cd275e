import React from "react";
import { site } from "../../config/site";
import { ChatIcon, GroupIcon, MatchIcon } from "./icons";
import * as styles from "./features.module.css";

const cards = [
  {
    title: "AI-powered matching",
    Icon: MatchIcon,
    body: "Tell us your niche, audience and style. Our matching suggests creators whose strengths complement yours, so every collab reaches new viewers.",
  },
  {
    title: "Seamless Communication",
    Icon: ChatIcon,
    body: "Built-in messaging keeps pitches, ideas and shooting plans in one thread, without hunting through DMs across three apps.",
  },
  {
    title: "Group Collaborations",
    Icon: GroupIcon,
    body: `Plan challenges, series and trend takeovers with up to ${site.groupChatCap} creators in one chat.`,
  },
] as const;

export function Features() {
  return (
    <section id={site.sections.features} tabIndex={-1} className={styles.features} aria-labelledby="features-title">
      <div className={styles.inner}>
        <h2 id="features-title" className={styles.heading}>
          Everything you need to create together
        </h2>
        <p className={styles.lead}>Find the right people, talk it through, and ship the collab.</p>
        <ul className={styles.grid}>
          {cards.map(({ title, Icon, body }) => (
            <li key={title} className={styles.card}>
              <span className={styles.icon}>
                <Icon />
              </span>
              <h3 className={styles.cardTitle}>{title}</h3>
              <p className={styles.cardBody}>{body}</p>
            </li>
          ))}
        </ul>
      </div>
    </section>
  );
}
