import React from "react";
import { site } from "../../config/site";
import { SectionLink } from "./section-link";
import * as styles from "./hero.module.css";

const figures = [
  { value: site.claims.creatorsInterested, label: "creators interested" },
  { value: site.claims.launch, label: "expected launch" },
  { value: site.claims.earlyAccessPrice, label: "early access" },
] as const;

// One string, so the prerendered paragraph is one text node that hydration leaves alone: split
// JSX text made Preact rewrite it, and the repaint became the page's Largest Contentful Paint.
const pitch = `${site.name} is the marketplace where TikTok creators find their next collaborators. AI-powered matching finds creators who fit your style, built-in messaging keeps every idea in one place, and group collaborations bring up to ${site.groupChatCap} creators together in one chat.`;

export function Hero() {
  const [first, ...rest] = site.tagline.split(" ");
  return (
    <section className={styles.hero} aria-labelledby="hero-title">
      <div className={styles.inner}>
        <div className={styles.copy}>
          <p className={styles.eyebrow}>The collaboration marketplace for TikTok creators</p>
          <h1 id="hero-title" className={styles.title}>
            {`${first} `}
            <span className={styles.highlight}>{rest.join(" ")}</span>
          </h1>
          <p className={styles.pitch}>{pitch}</p>
          <SectionLink section={site.sections.waitlist} onLanding className="btn btn-primary btn-large">
            {site.labels.joinTheWaitlist}
          </SectionLink>
          <ul className={styles.figures} aria-label="At a glance">
            {figures.map((figure) => (
              <li key={figure.label} className={styles.figure}>
                <strong className={styles.figureValue}>{figure.value}</strong>
                <span className={styles.figureLabel}>{figure.label}</span>
              </li>
            ))}
          </ul>
        </div>
        <Preview />
      </div>
    </section>
  );
}

const previewMessages = [
  { who: "Mia", tone: "a", text: "Trend drops Friday. Who is in for the duet chain?" },
  { who: "Leo", tone: "b", text: "I will film the transition shot." },
  { who: "Ana", tone: "c", text: "Matched us with 3 more dancers!" },
] as const;

/** A decorative glimpse of a group chat; hidden from assistive technology. */
function Preview() {
  return (
    <div className={styles.preview} aria-hidden="true">
      <div className={styles.chat}>
        <p className={styles.chatHead}>
          <span>Dance challenge crew</span>
          <span className={styles.count}>{`12 / ${site.groupChatCap}`}</span>
        </p>
        {previewMessages.map((message) => (
          <p key={message.who} className={styles.message}>
            <span className={`${styles.avatar} ${styles[message.tone]}`}>{message.who[0]}</span>
            <span>
              <strong>{message.who}</strong> {message.text}
            </span>
          </p>
        ))}
      </div>
      <p className={styles.match}>
        <strong>96% match</strong> Comedy × Dance
      </p>
    </div>
  );
}
