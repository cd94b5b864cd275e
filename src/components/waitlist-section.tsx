import React from "react";
import { PrivacyPolicyLink, TermsLink } from "./legal-shortcodes";
import { site } from "../../config/site";
import { WaitlistForm } from "./waitlist-form";
import * as styles from "./waitlist-section.module.css";

export function WaitlistSection() {
  return (
    <section id={site.sections.waitlist} tabIndex={-1} className={styles.section} aria-labelledby="waitlist-title">
      <div className={styles.card}>
        <h2 id="waitlist-title" className={styles.heading}>
          Get early access
        </h2>
        <p className={styles.lead}>
          {`${site.claims.creatorsInterested} creators interested. Early access is free, and we will e-mail you as soon as ${site.name} opens (launch expected ${site.claims.launch}).`}
        </p>
        <WaitlistForm />
        <p className={styles.fineprint}>
          {site.waitlist.consent.statement} Read our <PrivacyPolicyLink /> and our <TermsLink />.
        </p>
      </div>
    </section>
  );
}
