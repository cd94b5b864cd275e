// Gatsby's runtime needs its loader and router; unit tests get plain stand-ins.
// https://www.gatsbyjs.com/docs/how-to/testing/unit-testing/#3-useful-mocks-to-complete-your-testing-environment
import React, { type AnchorHTMLAttributes } from "react";
import { readEnv, siteSettings } from "../config/env";
import type { SiteSettings } from "../src/components/use-site-settings";

type LinkProps = AnchorHTMLAttributes<HTMLAnchorElement> & { to: string; state?: unknown };

export const Link = jest.fn(({ to, state: _state, ...rest }: LinkProps) =>
  React.createElement("a", { ...rest, href: to }),
);
export const navigate = jest.fn(() => Promise.resolve());
export const graphql = jest.fn();

// The one static query (use-site-settings.ts), answered with what a build without settings puts in siteMetadata.
const siteMetadata: SiteSettings = { ...siteSettings(readEnv({})), favicon: "/favicon.svg" };
export const useStaticQuery = jest.fn(() => ({ site: { siteMetadata } }));
