"""moto_server for the deploy rehearsal, with the two moto 5.2.1 bugs fixed that break a
CloudFormation deploy of the stack. Everything else is moto as shipped; the flags are
moto_server's own.

1. A KMS key created from a template passes the template's tags ({"Key", "Value"}) to a
   tagger that wants {"TagKey", "TagValue"}: ExecuteChangeSet answers 500 halfway through.
2. Ref of an AWS::Events::EventBus resolves to moto's object instead of the bus name
   (CloudFormation documents the name), so a function whose environment holds it cannot be
   read back (GetFunctionConfiguration answers 500).
"""
import sys

from moto.events import models as events
from moto.kms import models as kms

_tag_resource = kms.KmsBackend.tag_resource


def tag_resource(self, key_id, tags):
    tags = [{"TagKey": t.get("TagKey", t.get("Key")), "TagValue": t.get("TagValue", t.get("Value"))} for t in tags or []]
    return _tag_resource(self, key_id, tags)


kms.KmsBackend.tag_resource = tag_resource
events.EventBus.physical_resource_id = property(lambda self: self.name)

from moto.server import main  # noqa: E402

main(sys.argv[1:])
