/** The access tokens' issuer, and the authorization server's address: {auth_url} (DESIGN.md section 1). */
export function issuerOf(publicUrl: string): string {
  return `${publicUrl}/auth`;
}
