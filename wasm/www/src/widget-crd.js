// The gallery's CRD. One copy: the module's Rust tests (wasm/src/tests.rs) read the text
// between the backquotes.
export default `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
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
            - rule: self.minReplicas <= self.replicas && self.replicas <= self.maxReplicas
              messageExpression: "'replicas of ' + self.owner + ' must be between minReplicas and maxReplicas'"
              fieldPath: .replicas
            properties:
              replicas: {type: integer}
              minReplicas: {type: integer}
              maxReplicas: {type: integer}
              owner:
                type: string
                maxLength: 63
                x-kubernetes-validations:
                - rule: self == oldSelf
                  message: owner is immutable
`;
