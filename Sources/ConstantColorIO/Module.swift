public enum ConstantColorIOModule {}
