// The gallery: examples after the Kubernetes CEL documentation (kubernetes.io "Common
// Expression Language in Kubernetes": the list, regex, URL, IP, CIDR, quantity, semver,
// format and authorizer libraries; CRD validation rules with oldSelf; a
// ValidatingAdmissionPolicy with params). Each sets a mode and its panes; `expect` is what
// the end-to-end test checks each one gives.

import WIDGET_CRD from './widget-crd.js';

const WIDGET = `apiVersion: example.com/v1
kind: Widget
metadata: {name: web, namespace: default}
spec: {replicas: 3, minReplicas: 1, maxReplicas: 5, owner: ada}
`;

const POLICY = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replicalimit-policy.example.com}
spec:
  failurePolicy: Fail
  paramKind: {apiVersion: rules.example.com/v1, kind: ReplicaLimit}
  matchConstraints:
    resourceRules:
    - apiGroups: [apps]
      apiVersions: [v1]
      operations: [CREATE, UPDATE]
      resources: [deployments]
  validations:
  - expression: object.spec.replicas <= params.maxReplicas
    messageExpression: "'object.spec.replicas must be no greater than ' + string(params.maxReplicas)"
    reason: Invalid
`;

const BINDINGS = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replicalimit-binding-test.example.com}
spec:
  policyName: replicalimit-policy.example.com
  validationActions: [Deny]
  paramRef: {name: replica-limit-test.example.com, namespace: default, parameterNotFoundAction: Deny}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replicalimit-binding-warn.example.com}
spec:
  policyName: replicalimit-policy.example.com
  validationActions: [Warn, Audit]
  paramRef: {name: replica-limit-test.example.com, namespace: default, parameterNotFoundAction: Deny}
`;

const REQUEST = `kind: {group: apps, version: v1, kind: Deployment}
resource: {group: apps, version: v1, resource: deployments}
name: nginx
namespace: default
operation: CREATE
userInfo: {username: ada, groups: ["system:authenticated"]}
`;

const expression = (title, expr, vars = '', expect = {}, decls = '') => ({
  title, mode: 'expression', expression: { expr, vars, decls }, expect,
});

export const EXAMPLES = [
  expression('Lists: sorted, sum, min, indexOf',
    '[1, 2, 3].isSorted() && [1, 2, 3].sum() == 6 && [4, 2, 9].min() == 2 && ["a", "b"].indexOf("b") == 1',
    '', { value: 'true' }),
  expression('Lists: names of containers without limits',
    'self.containers.filter(c, !has(c.resources.limits)).map(c, c.name)',
    `self:
  containers:
  - {name: app, resources: {limits: {cpu: 500m}}}
  - {name: sidecar, resources: {}}
`, { value: '["sidecar"]' }),
  expression('Regex: find and findAll',
    "'abc 123 def 456'.find('[0-9]+') == '123' && 'abc 123 def 456'.findAll('[0-9]+') == ['123', '456']",
    '', { value: 'true' }),
  expression('Regex: matches a DNS label', "self.name.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')",
    'self: {name: my-app}', { value: 'true' }),
  expression('URL: host, port and path', "url('https://example.com:8080/path?q=1').getHost() + ' ' + url('https://example.com:8080/path').getPort() + ' ' + url('https://example.com/path').getEscapedPath()",
    '', { value: '"example.com:8080 8080 /path"' }),
  expression('IP: family and loopback', "ip('127.0.0.1').isLoopback() && ip('fe80::1').family() == 6 && isIP('10.0.0.1')",
    '', { value: 'true' }),
  expression('CIDR: contains an IP', "cidr('192.168.0.0/16').containsIP(ip('192.168.10.1')) && cidr('10.0.0.0/8').prefixLength() == 8",
    '', { value: 'true' }),
  expression('Quantity: compare and add', "quantity(self.memory).isLessThan(quantity('2Gi')) && quantity('500m').add(quantity('500m')) == quantity('1')",
    'self: {memory: 1Gi}', { value: 'true' }),
  expression('Semver: compare versions (1.33+)', "semver('1.2.3').isLessThan(semver('1.10.0')) && isSemver('v1.0.0', true)",
    '', { value: 'true' }),
  expression('Format: validate a DNS label (1.31+)', "format.dns1123Label().validate('My_Name')",
    '', { value: /must consist of lower case alphanumeric characters/ }),
  expression('Strings: extension functions', "'Hello, World'.lowerAscii().split(', ').join('-') + ' ' + 'abc'.upperAscii()",
    '', { value: '"hello-world ABC"' }),
  expression('Time: hours in a time zone (loads the zone table)', "t.getHours('America/Los_Angeles')",
    't: 2024-07-01T18:30:00Z', { value: '11' }, 't: timestamp'),
  {
    title: 'CRD: replicas between min and max (messageExpression, fieldPath)',
    mode: 'crd',
    crd: { crd: WIDGET_CRD, object: WIDGET.replace('replicas: 3', 'replicas: 7'), old: '' },
    expect: { errors: /spec\.replicas: Invalid value: replicas of ada must be between minReplicas and maxReplicas/ },
  },
  {
    title: 'CRD: transition rule with oldSelf (immutable owner)',
    mode: 'crd',
    crd: { crd: WIDGET_CRD, object: WIDGET.replace('owner: ada', 'owner: bob'), old: WIDGET },
    expect: { errors: /spec\.owner: Invalid value: "bob": owner is immutable/ },
  },
  {
    title: 'CRD: a messageExpression over the cost budget (string() of a number)',
    mode: 'crd',
    crd: {
      crd: `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: parcels.example.com}
spec:
  group: example.com
  names: {kind: Parcel, plural: parcels}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: self.min <= self.max
              messageExpression: "'min (' + string(self.min) + ') exceeds max (' + string(self.max) + ')'"
            properties:
              min: {type: integer}
              max: {type: integer}
`,
      object: 'apiVersion: example.com/v1\nkind: Parcel\nmetadata: {name: p, namespace: default}\nspec: {min: 5, max: 2}\n',
      old: '',
    },
    expect: { errors: /estimated messageExpression cost exceeds budget by factor of more than 100x/ },
  },
  {
    title: 'Admission: replica limit with params (Deny and Warn)',
    mode: 'admission',
    admission: {
      policies: POLICY,
      bindings: BINDINGS,
      params: 'apiVersion: rules.example.com/v1\nkind: ReplicaLimit\nmetadata: {name: replica-limit-test.example.com, namespace: default}\nmaxReplicas: 3\n',
      request: REQUEST,
      object: 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: nginx, namespace: default}\nspec: {replicas: 5}\n',
      oldObject: '',
      namespace: '',
      authorizer: '',
    },
    expect: { decision: /Denied/ },
  },
  {
    title: 'Admission: authorizer check (only admins may set a label)',
    mode: 'admission',
    admission: {
      policies: `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: owner-label}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [configmaps]}
  validations:
  - expression: "!has(object.metadata.labels) || !('owner' in object.metadata.labels) || authorizer.group('').resource('configmaps').namespace(object.metadata.namespace).check('label-owner').allowed()"
    message: only users allowed to label-owner may set the owner label
`,
      bindings: `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: owner-label}
spec: {policyName: owner-label, validationActions: [Deny]}
`,
      params: '',
      request: `kind: {group: "", version: v1, kind: ConfigMap}
resource: {group: "", version: v1, resource: configmaps}
name: settings
namespace: default
operation: CREATE
userInfo: {username: ada}
`,
      object: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: default, labels: {owner: ada}}\n',
      oldObject: '',
      namespace: '',
      authorizer: 'rules:\n- {verbs: [get], resources: [configmaps]}\n',
    },
    expect: { decision: /Denied/ },
  },
];
