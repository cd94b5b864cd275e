// https://www.gatsbyjs.com/docs/reference/config-files/gatsby-browser/
import "./src/styles/global.css";
