import { apiUrl } from './urls';

/** The User object (spec "User"), as every service embeds it. */
export function presentUser(user: { id: string; displayName: string; email: string; photoURL?: string }, baseUrl: string) {
  return {
    object: 'user' as const,
    id: user.id,
    displayName: user.displayName,
    email: user.email,
    ...(user.photoURL ? { photoURL: user.photoURL } : {}),
    urls: { location: apiUrl(baseUrl, `/v1/users/${user.id}`) },
  };
}
