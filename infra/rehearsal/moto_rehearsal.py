"""moto_server for the deploy rehearsal, with the three moto 5.2.1 bugs fixed that break a
CloudFormation deploy of the stack, and costs cut (below). Everything else is moto as
shipped; the flags are moto_server's own.

1. A KMS key created from a template passes the template's tags ({"Key", "Value"}) to a
   tagger that wants {"TagKey", "TagValue"}: ExecuteChangeSet answers 500 halfway through.
2. Ref of an AWS::Events::EventBus resolves to moto's object instead of the bus name
   (CloudFormation documents the name), so a function whose environment holds it cannot be
   read back (GetFunctionConfiguration answers 500).
3. moto's CloudFormation does not implement AWS::SecretsManager::Secret, so a policy that
   grants reading the stage's audit pseudonym key (Resource: Ref of the secret) is left
   without resources and IAM refuses it (MalformedPolicyDocument). The secret is created
   here as CloudFormation would: a generated string, Ref answering its ARN.

And one cost: moto parses every template with PyYAML's pure-Python loader, a JSON one too
(the CDK writes JSON), 2.6 CPU-s for the stack's 670 KB each time, and a deploy parses it
several times. A JSON document is YAML that parses to the same value, so its CloudFormation
reads a template that starts as JSON with json first, and anything else as before. And the
two lookups that infra/emulators/moto_server.py keeps for the test lanes' server (moto's
service folders, a response class's method names) are kept here too: moto repeats them on
every request, and the rehearsal makes some thousand.
"""
import json
import os
import sys

import yaml
from moto.cloudformation import models as cloudformation
from moto.cloudformation import responses as cloudformation_responses
from moto.core.common_models import CloudFormationModel
from moto.events import models as events
from moto.kms import models as kms
from moto.secretsmanager import models as secretsmanager

_tag_resource = kms.KmsBackend.tag_resource


def tag_resource(self, key_id, tags):
    tags = [{"TagKey": t.get("TagKey", t.get("Key")), "TagValue": t.get("TagValue", t.get("Value"))} for t in tags or []]
    return _tag_resource(self, key_id, tags)


kms.KmsBackend.tag_resource = tag_resource
events.EventBus.physical_resource_id = property(lambda self: self.name)


class CfnSecret(CloudFormationModel):
    __module__ = "moto.secretsmanager.models"  # moto's model registry names a model's service by its module

    @staticmethod
    def cloudformation_type():
        return "AWS::SecretsManager::Secret"

    @staticmethod
    def cloudformation_name_type():
        return "Name"

    @classmethod
    def create_from_cloudformation_json(cls, resource_name, cloudformation_json, account_id, region_name, **kwargs):
        props = cloudformation_json.get("Properties", {})
        backend = secretsmanager.secretsmanager_backends[account_id][region_name]
        value = props.get("SecretString")
        gen = props.get("GenerateSecretString")
        if value is None and gen is not None:
            value = backend.get_random_password(
                password_length=int(gen.get("PasswordLength", 32)), exclude_characters=gen.get("ExcludeCharacters", ""),
                exclude_numbers=False, exclude_punctuation=bool(gen.get("ExcludePunctuation", False)),
                exclude_uppercase=False, exclude_lowercase=False, include_space=False, require_each_included_type=False)
            value = json.loads(value)["RandomPassword"] if value.startswith("{") else value
        backend.create_secret(name=resource_name, secret_string=value, secret_binary=None,
                              description=props.get("Description"), tags=None, kms_key_id=None,
                              client_request_token=None, replica_regions=[], force_overwrite=False)
        return backend.secrets[resource_name]


secretsmanager.FakeSecret.physical_resource_id = property(lambda self: self.arn)


class JSONFirstYAML:
    """PyYAML as moto's CloudFormation uses it, but load reads a JSON document as JSON."""

    def __getattr__(self, name):
        return getattr(yaml, name)

    @staticmethod
    def load(stream, Loader):
        if isinstance(stream, str) and stream.lstrip().startswith("{"):
            try:
                return json.loads(stream)
            except ValueError:
                pass
        return yaml.load(stream, Loader=Loader)


cloudformation.yaml = cloudformation_responses.yaml = JSONFirstYAML()

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "emulators"))
import moto_server  # noqa: E402  infra/emulators/moto_server.py

moto_server.keep_lookups()

from moto.server import main  # noqa: E402

main(sys.argv[1:])
