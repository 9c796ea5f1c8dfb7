#!/usr/bin/env python3
"""Interoperability vectors between PubNubCrypto (Swift) and PubNub's official Python SDK.

    crypto_vectors.py generate OUTPUT.json   ciphertexts made by the Python SDK (the fixture the
                                             Swift tests decrypt)
    crypto_vectors.py verify INPUT.json      decrypts ciphertexts made by the Swift module; exits
                                             with status 1 when any of them disagrees

Needs `pip install pubnub==10.8.0` (see Documentation/Encryption.md).
"""

import base64
import json
import sys

from importlib.metadata import version

from pubnub.crypto import AesCbcCryptoModule, LegacyCryptoModule, PubNubCryptodome
from pubnub.pnconfiguration import PNConfiguration

SDK_VERSION = version("pubnub")

KEYS = [
    "enigma",
    "myCipherKey",
    "a key with spaces and punctuation: !@#$%^&*()",
    "\u043a\u043b\u044e\u0447-\U0001f511",  # Cyrillic and an emoji: exercises UTF-8 key bytes
    "k" * 100,
]


def messages():
    """JSON texts of interesting lengths (bytes of UTF-8), as a publisher would send them."""
    yield json.dumps("hello")
    yield json.dumps({"text": "hello", "n": 1})
    yield json.dumps({"greeting": "h\u00e9llo w\u00f6rld \U0001f30d"}, ensure_ascii=False)
    for length in (15, 16, 17, 31, 32, 33):
        yield json.dumps("x" * (length - 2))  # quotes add two bytes
    yield json.dumps([{"index": i, "name": "item-%d" % i} for i in range(40)])


def configuration(key, use_random_iv):
    config = PNConfiguration()
    config.cipher_key = key
    config.use_random_initialization_vector = use_random_iv
    return config


def generate(path):
    cases = []
    for key_index, key in enumerate(KEYS):
        for message_index, text in enumerate(messages()):
            # The modules of today's SDK, and the older class the SDK still uses when only a cipher
            # key is configured, each with both initialization vector modes the legacy format has.
            for producer, cryptor, random_iv in (
                ("AesCbcCryptoModule", "ACRH", True),
                ("LegacyCryptoModule", "0000", True),
                ("LegacyCryptoModule", "0000", False),
                ("PubNubCryptodome", "0000", True),
                ("PubNubCryptodome", "0000", False),
            ):
                config = configuration(key, random_iv)
                if producer == "AesCbcCryptoModule":
                    ciphertext = AesCbcCryptoModule(config).encrypt(text)
                elif producer == "LegacyCryptoModule":
                    ciphertext = LegacyCryptoModule(config).encrypt(text)
                else:
                    ciphertext = PubNubCryptodome(config).encrypt(key, text, use_random_iv=random_iv)
                cases.append(
                    {
                        "name": "%s key%d message%d randomIV=%s" % (producer, key_index, message_index, random_iv),
                        "producer": "pubnub-python %s %s" % (SDK_VERSION, producer),
                        "cryptor": cryptor,
                        "cipherKey": key,
                        "useRandomIV": random_iv,
                        "plaintext": text,
                        "ciphertext": ciphertext,
                    }
                )
    document = {
        "description": "Ciphertexts produced by PubNub's Python SDK; regenerate with Tests/Interop/crypto_vectors.py",
        "sdk": "pubnub-python " + SDK_VERSION,
        "cases": cases,
    }
    with open(path, "w", encoding="utf-8") as output:
        json.dump(document, output, indent=1, ensure_ascii=False)
        output.write("\n")
    print("wrote %d cases to %s" % (len(cases), path))


def verify(path):
    with open(path, encoding="utf-8") as source:
        cases = json.load(source)["cases"]
    failures = []
    for case in cases:
        config = configuration(case["cipherKey"], case["useRandomIV"])
        expected_text = case["plaintext"]
        try:
            # Both modules read both formats; check each, as bytes and as a message.
            for module in (AesCbcCryptoModule(config), LegacyCryptoModule(config)):
                raw = module.decrypt_file(base64.b64decode(case["ciphertext"]))
                if raw != expected_text.encode("utf-8"):
                    raise ValueError("bytes differ: %r" % raw[:64])
                message = module.decrypt(case["ciphertext"])
                if message != json.loads(expected_text):
                    raise ValueError("message differs: %r" % message)
            if case["cryptor"] == "0000":
                legacy = PubNubCryptodome(config).decrypt(case["cipherKey"], case["ciphertext"], case["useRandomIV"])
                if legacy != json.loads(expected_text):
                    raise ValueError("PubNubCryptodome gives %r" % legacy)
        except Exception as error:  # any failure is a disagreement to report
            failures.append("%s: %s" % (case["name"], error))
    for failure in failures:
        print("MISMATCH " + failure)
    print("%d of %d Swift ciphertexts decrypted by the Python SDK" % (len(cases) - len(failures), len(cases)))
    return 1 if failures or not cases else 0


def main(arguments):
    if len(arguments) != 3 or arguments[1] not in ("generate", "verify"):
        print(__doc__)
        return 2
    if arguments[1] == "generate":
        generate(arguments[2])
        return 0
    return verify(arguments[2])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
