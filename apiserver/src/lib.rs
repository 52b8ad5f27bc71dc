//! kcel-apiserver: a small Kubernetes API server on embedded storage, built beside kcel.
//!
//! So far: the [`storage`] layer (the subset of etcd that kube-apiserver uses, with SQLite and
//! in-memory backends).

pub mod storage;
