// The error catalogue the document lists its error responses from (code -> one status, meaning): the server's own
// (src/shared/error-catalogue.ts), which every DomainError takes its status from.
export { errorCatalogue } from "../shared/error-catalogue";
