import React from "react";
import { Link } from "gatsby";
import { site } from "../site";
import { LogoMark } from "./icons";
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
              <Link to={site.routes.privacyPolicy}>Privacy Policy</Link>
            </li>
            <li>
              <Link to={site.routes.termsOfService}>Terms of Service</Link>
            </li>
          </ul>
        </nav>
      </div>
    </footer>
  );
}
