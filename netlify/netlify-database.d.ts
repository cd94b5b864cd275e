// Netlify's database client, which a founder installs to turn Netlify Database on (docs/netlify.md): it is not a
// dependency of this project, so its types are not here when it is not installed. The one call the functions make.
declare module "@netlify/database" {
  export function getDatabase(options: { connectionString: string }): { pool: import("pg").Pool };
}
