declare module "*.module.css" {
  const classes: { readonly [className: string]: string };
  export = classes;
}

// The global stylesheet, imported for its side effect (gatsby-browser.tsx).
declare module "*/global.css";
