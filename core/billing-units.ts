/** Kinds of billable unit. Their prices are the operation catalogue's; only the names are shared here. */
export type BillingUnit = 'forum_post' | 'forum_comment' | 'subforum' | 'post' | 'profile' | 'user' | 'list' | 'space';
