/// How a context holds its container.
///
/// Every context keeps its container alive, except the container's main context: the container
/// holds that one, and a reference back would keep both alive for ever, with the store's file
/// handles or connections. The main context holds its container weakly, and what the container is
/// made of strongly, so that it can go on if the app lets the container go and keeps the context.
enum ContainerLink {
    case owned(ModelContainer)
    case main(MainContainerLink)

    /// The container's schema and stores, without making a successor: for a context being
    /// released.
    var schemaAndStores: (schema: Schema, stores: [StoreSlot]) {
        switch self {
        case .owned(let container): (container.schema, container.stores)
        case .main(let link): (link.parts.schema, link.parts.stores)
        }
    }
}

/// The main context's weak reference to its container, and the parts to rebuild it from.
final class MainContainerLink {
    weak var container: ModelContainer?
    let parts: ModelContainer.Parts

    init(_ container: ModelContainer) {
        self.container = container
        self.parts = container.parts
    }
}

extension ModelContext {
    /// Makes the context its container's main context, which the container holds.
    func becomeMainContext(of container: ModelContainer) {
        containerLink = .main(MainContainerLink(container))
        reference.setContainer(container, strongly: false)
    }

    /// After the app released the main context's container and kept the context: a container on
    /// the same stores, which the context now holds (and its models too, for a stand-in). Other
    /// contexts' saves reach this context at its next fetch or save, not by themselves.
    func adoptSuccessor(of link: MainContainerLink) -> ModelContainer {
        let successor = ModelContainer(parts: link.parts)
        containerLink = .owned(successor)
        reference.setContainer(successor, strongly: true)
        return successor
    }
}
