package httpapi

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"
)

// TokenPrefix starts every token, so that a leaked one is recognised.
const TokenPrefix = "sbt_"

// NewToken returns a fresh token and the hash the store keeps of it.
func NewToken() (token, hash string) {
	b := make([]byte, 32)
	rand.Read(b)
	token = TokenPrefix + base64.RawURLEncoding.EncodeToString(b)
	return token, HashToken(token)
}

// HashToken is the hex SHA-256 of a token: its key in the store. A token
// carries 256 random bits, so a plain hash is as good as a slow one.
func HashToken(token string) string {
	h := sha256.Sum256([]byte(strings.TrimSpace(token)))
	return hex.EncodeToString(h[:])
}
