/** Vite turns CSS imports into <link> tags; TypeScript only needs to know they are modules. */
declare module '*.css';
