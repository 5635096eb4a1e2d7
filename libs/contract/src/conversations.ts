/** spec "Conversation, issue, cluster" (GitBook's Conversation, ConversationIssue, IssuesCluster). Filled in by issue 14. */
export {};
