export * from "./registry/types.js";
