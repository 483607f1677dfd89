# django-allauth settings for a local stack with Understudy as Apple, Google and the mail server.
# Import from your settings module in development: `from .settings_understudy import *`.

SOCIALACCOUNT_PROVIDERS = {
    "google": {
        "APPS": [{
            "client_id": "123456789012-understudyweb.apps.googleusercontent.com",
            "secret": "any",
        }],
        # Without the proxy, point Google's certificates at Understudy directly instead:
        # "CERTS_URL": "http://127.0.0.1:7080/google/oauth2/v1/certs",
    },
    "apple": {
        "APPS": [{
            "client_id": "com.example.app.web",
            "secret": "UNDERSTUDY",  # the key id of your client-secret key
            "key": "UNDRSTDY42",     # the team id Understudy's tokens and checks use by default
            "settings": {"certificate_key": "-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----"},
        }],
    },
}

# Mail to Understudy's SMTP sink.
EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
EMAIL_HOST = "127.0.0.1"
EMAIL_PORT = 7025
EMAIL_USE_TLS = False
