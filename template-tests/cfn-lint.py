"""cfn-lint 1.51.0 with two of its costs per Fn::GetAtt made constant: the same rules, the
same findings (template-tests/cfnlint_test.go runs it with cfn-lint's own arguments).

For each Fn::GetAtt, cfn-lint checks the resource's name against an enum of every resource
in the template, comparing them one by one in Python (E3030's enum through jsonschema's
equal), and builds the attributes of every resource again (Template.get_valid_getatts).
Both grow with resources times GetAtts (our templates: ~435 resources, ~765 GetAtts each);
the six templates took 51.6 and 55.1 CPU-s with cfn-lint alone, 42.5 and 45.3 through here
(2026-12-01, two rounds, each pair side by side).

Here a string found among an enum's values passes at once (equal() of two strings, neither
"true" nor "false" in any case, is ==, so cfn-lint's scan could only pass it too), and
anything else takes cfn-lint's own path, findings and messages included; a template's
GetAtts are built once, from resources that do not change while it is linted, and so is
whether it is the CDK's (a rule asked per Fn::Join, reading every resource). Another
version of cfn-lint runs as it is: the test fails on it anyway, as its findings were
reviewed with 1.51.0.
"""

import sys

import cfnlint.jsonschema._keywords as keywords
from cfnlint.runner.cli import main
from cfnlint.template.template import Template
from cfnlint.version import __version__

_enum = keywords.enum
_getatts = Template.get_valid_getatts


def _enum_found_first(validator, enums, instance, schema):
    if (
        isinstance(enums, list)
        and isinstance(instance, str)
        and instance.lower() not in ("true", "false")
        and instance in enums
    ):
        return
    yield from _enum(validator, enums, instance, schema)


def _getatts_once(self):
    cached = self.__dict__.get("_getatts_once")
    if cached is None:
        cached = self.__dict__["_getatts_once"] = _getatts(self)
    return cached


_is_cdk = Template.is_cdk_template


def _is_cdk_once(self):
    cached = self.__dict__.get("_is_cdk_once")
    if cached is None:
        cached = self.__dict__["_is_cdk_once"] = _is_cdk(self)
    return cached


if __version__ == "1.51.0":
    # cfn-lint loads its rules from their files as it starts, and E3030's imports enum from
    # here then.
    keywords.enum = _enum_found_first
    Template.get_valid_getatts = _getatts_once
    Template.is_cdk_template = _is_cdk_once

if __name__ == "__main__":
    sys.exit(main())
