// A stand-in for @netlify/database, Netlify's database client, which is no dependency of this project: a founder
// installs it to turn Netlify Database on (docs/netlify.md). Where the database is a server (netlify dev's, the
// tests' Postgres), the client is pg's Pool over the connection string, its "server" driver: this is that driver.
// Jest maps the package here (netlify-functions.test.ts); a process of its own, through netlify-database-hooks.mjs.
const { Pool } = require("pg");

exports.getDatabase = ({ connectionString }) => ({ driver: "server", pool: new Pool({ connectionString }) });
