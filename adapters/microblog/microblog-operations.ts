/**
 * The web GraphQL operations the client calls and how it names them on the wire:
 * `GET {base}/i/api/graphql/{queryId}/{OperationName}?variables=…&features=…`. Query ids rotate on the real
 * platform, so they are configuration (`createMicroblogClient({ queryIds })`); these defaults only need to be
 * stable for recorded replays and the simulated platform, which routes on the operation name.
 */
export const DEFAULT_QUERY_IDS = {
  TweetResultsByRestIds: 'Xl5pC_lBk_gcO2ItU39DQw',
  TweetDetail: 'nBS-WpgA6ZG0CyNHD517JQ',
  Retweeters: 'X-XEqG5qHQSAwmvy00xfyQ',
  UserByScreenName: 'x3RLKWW1Tl7JgU7YtGxuzw',
  UserByRestId: 'LWxkCeL8Hlx0-f24DmPAJw',
  UsersByRestIds: 'OJBgJQIrij6e3cjqQ3Zu1Q',
  UserTweets: 'Y9WM4Id6UcGFE8Z-hbnixw',
  UserTweetsAndReplies: 'pZXwh96YGRqmBbbxu7Vk2Q',
  UserMedia: 'UpsM4uZ0D8vIoFgVLtvXHw',
  UserHighlightsTweets: 'Tqc024jD_NAh6O1Ls7b1EQ',
  UserBusinessProfileTeamTimeline: 'dh2lDmjqEkxCWQK_UxkH4w',
  Followers: 'OGScL-RC4DFMsRGOCjPR6g',
  Following: 'o5eNLkJb03ayTQa97Cpp7w',
  AboutAccountQuery: 'zs_jFPFT78rBpXv9Z3U2YQ',
  SearchTimeline: 'VhUd6vHVmLBcw0uX-6jMLA',
  ListByRestId: 'Tzkkg-NaBi_y1aAUUb6_eQ',
  ListMembers: 'BQp2IEYkgxuSxqbTAr1e1g',
  ListLatestTweetsTimeline: '2TemLyqrMpTeAmysdbnVqw',
  AudioSpaceById: 'rC8fMnUEmGlFDCEKvZwHRA',
} as const;

export type MicroblogOperation = keyof typeof DEFAULT_QUERY_IDS;

/** Feature switches the web client sends with every query; the server rejects queries missing required ones. */
export const DEFAULT_FEATURES: Record<string, boolean> = {
  rweb_tipjar_consumption_enabled: true,
  responsive_web_graphql_exclude_directive_enabled: true,
  verified_phone_label_enabled: false,
  creator_subscriptions_tweet_preview_api_enabled: true,
  responsive_web_graphql_timeline_navigation_enabled: true,
  responsive_web_graphql_skip_user_profile_image_extensions_enabled: false,
  communities_web_enable_tweet_community_results_fetch: true,
  c9s_tweet_anatomy_moderator_badge_enabled: true,
  articles_preview_enabled: true,
  tweetypie_unmention_optimization_enabled: true,
  responsive_web_edit_tweet_api_enabled: true,
  graphql_is_translatable_rweb_tweet_is_translatable_enabled: true,
  view_counts_everywhere_api_enabled: true,
  longform_notetweets_consumption_enabled: true,
  responsive_web_twitter_article_tweet_consumption_enabled: true,
  tweet_awards_web_tipping_enabled: false,
  freedom_of_speech_not_reach_fetch_enabled: true,
  standardized_nudges_misinfo: true,
  tweet_with_visibility_results_prefer_gql_limited_actions_policy_enabled: true,
  longform_notetweets_rich_text_read_enabled: true,
  longform_notetweets_inline_media_enabled: true,
  responsive_web_enhance_cards_enabled: false,
  hidden_profile_subscriptions_enabled: true,
  subscriptions_verification_info_is_identity_verified_enabled: true,
  subscriptions_verification_info_verified_since_enabled: true,
  highlights_tweets_tab_ui_enabled: true,
  spaces_2022_h2_spaces_communities: true,
  spaces_2022_h2_clipping: true,
};

/** Field toggles that make the server include optional payload parts (Article bodies, about details). */
export const FIELD_TOGGLES: Partial<Record<MicroblogOperation, Record<string, boolean>>> = {
  TweetDetail: { withArticleRichContentState: true, withArticlePlainText: false },
  TweetResultsByRestIds: { withArticleRichContentState: false },
  UserByScreenName: { withAuxiliaryUserLabels: false },
};

export type ReplyRanking = 'Recency' | 'Relevance' | 'Likes';
export type SearchProduct = 'Top' | 'Latest' | 'People' | 'Media';
