// GraphQL Code Generator: schema.graphql + test/ops/*.graphql -> typed documents for graphql-request.
import type { CodegenConfig } from "@graphql-codegen/cli";

const config: CodegenConfig = {
  schema: "schema.graphql",
  documents: ["test/ops/**/*.graphql"],
  ignoreNoDocuments: true,
  generates: {
    "test/generated/": {
      preset: "client",
      presetConfig: { fragmentMasking: false },
      config: { useTypeImports: true, enumsAsTypes: true, scalars: { DateTime: "string", JSON: "unknown" } },
    },
  },
};

export default config;
