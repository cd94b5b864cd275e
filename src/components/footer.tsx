import React from "react";
import { site } from "../../config/site";
import { LogoMark } from "./icons";
import { PrivacyPolicyLink, TermsLink } from "./legal-shortcodes";
import { useSiteSettings } from "./use-site-settings";
import * as styles from "./footer.module.css";

export function Footer() {
  const { contactEmail } = useSiteSettings();
  return (
    <footer className={styles.footer}>
      <div className={styles.inner}>
        <div className={styles.brand}>
          <LogoMark />
          <p>
            <strong>{site.name}</strong>
            <span className={styles.tagline}>{site.tagline}</span>
          </p>
        </div>
        <nav aria-label="Footer">
          <ul className={styles.links}>
            <li>
              <a href={`mailto:${contactEmail}`}>{contactEmail}</a>
            </li>
            <li>
              <PrivacyPolicyLink />
            </li>
            <li>
              <TermsLink />
            </li>
          </ul>
        </nav>
      </div>
    </footer>
  );
}
