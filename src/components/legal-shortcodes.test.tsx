import React, { type ReactNode } from "react";
import { render, screen } from "@testing-library/react";
import { MDXProvider, useMDXComponents } from "@mdx-js/react";
import { LaunchMailTool, legalShortcodes, PolicyFields } from "./legal-shortcodes";

const mailchimp = "Intuit Inc. (Mailchimp, United States)";

/**
 * A policy as @mdx-js/mdx 2 compiles it (providerImportSource "@mdx-js/react", as gatsby-plugin-mdx sets it): the
 * provider's `wrapper`, given the page's props, around the text.
 */
function CompiledPolicy(props: { pageContext?: unknown; children?: ReactNode }) {
  const { wrapper: Wrapper } = useMDXComponents() as { wrapper: React.ComponentType<typeof props> };
  return (
    <Wrapper {...props}>
      <p>
        The launch e-mail goes through <LaunchMailTool />.
      </p>
    </Wrapper>
  );
}

/** The page as the legal template renders it: gatsby-plugin-mdx puts the frontmatter in the page's context. */
function renderPolicy(frontmatter?: Record<string, unknown>) {
  return render(
    <MDXProvider components={legalShortcodes}>
      <CompiledPolicy pageContext={frontmatter === undefined ? {} : { frontmatter }} />
    </MDXProvider>,
  );
}

describe("<LaunchMailTool />", () => {
  it("names the tool its own policy's frontmatter names, in an element the founders' commands find it by", () => {
    const { container } = renderPolicy({ slug: "privacy-policy", launchMailTool: ` ${mailchimp} ` });
    expect(container).toHaveTextContent(`The launch e-mail goes through ${mailchimp}.`);
    const named = screen.getByText(mailchimp);
    expect(named.tagName).toBe("SPAN");
    expect(named).toHaveAttribute("data-launch-mail-tool", "");
    expect(container.querySelectorAll("[data-launch-mail-tool]")).toHaveLength(1);
  });

  it.each([[{ slug: "privacy-policy" }], [{ launchMailTool: "" }], [{ launchMailTool: null }], [undefined]])(
    "promises to name one before the list goes to it while the frontmatter names none (%j)",
    (frontmatter) => {
      const { container } = renderPolicy(frontmatter);
      expect(container).toHaveTextContent(
        "The launch e-mail goes through the mailing service we choose for it, which we will name here before the list goes to it.",
      );
      expect(container.querySelector("[data-launch-mail-tool]")).toBeNull();
    },
  );

  it("is the wrapper MDX puts around every policy, and needs nothing else around it", () => {
    render(
      <PolicyFields pageContext={{ frontmatter: { launchMailTool: mailchimp } }}>
        <LaunchMailTool />
      </PolicyFields>,
    );
    expect(screen.getByText(mailchimp)).toHaveAttribute("data-launch-mail-tool");
    expect(legalShortcodes.wrapper).toBe(PolicyFields);
  });
});
