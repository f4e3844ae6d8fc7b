// ESLint is the project's one lint tool: recommended rules plus typescript-eslint's.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["node_modules/", "dist/", "shared/gen/", ".flotilla/", "control-plane/dashboard/web-dist/", "test-output/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: "readonly", console: "readonly", Buffer: "readonly" } },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
      eqeqeq: ["error", "always"],
      "no-console": "off",
    },
  },
  {
    // The dashboard's page runs in a browser.
    files: ["control-plane/dashboard/web/**/*.ts"],
    languageOptions: { globals: { window: "readonly", document: "readonly", location: "readonly", customElements: "readonly", EventSource: "readonly", fetch: "readonly", URLSearchParams: "readonly", HTMLElement: "readonly", MessageEvent: "readonly" } },
  },
);
