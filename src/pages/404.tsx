import React from "react";
import { Link, type HeadFC } from "gatsby";
import { site } from "../../config/site";
import { Layout } from "../components/layout";
import { Seo } from "../components/seo";
import * as styles from "./404.module.css";

export default function NotFoundPage() {
  return (
    <Layout>
      <section className={styles.section} aria-labelledby="not-found-title">
        <p className={styles.code}>404</p>
        <h1 id="not-found-title">This page took a different route</h1>
        <p>The page you are looking for does not exist or has moved.</p>
        <Link to={site.routes.home} className="btn btn-primary btn-large">
          {site.labels.backToHome}
        </Link>
      </section>
    </Layout>
  );
}

export const Head: HeadFC = () => (
  <Seo title="Page not found" description="This page does not exist." path="/404/" noindex />
);
