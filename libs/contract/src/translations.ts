/** spec "Translation" (GitBook's Translation). Filled in by issue 14. */
export {};
